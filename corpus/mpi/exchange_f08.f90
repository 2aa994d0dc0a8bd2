! Point-to-point and collectives with the Fortran 2008 binding
! (`use mpi_f08`): a shift with MPI_Sendrecv, non-blocking receives
! completed one at a time with MPI_Waitany, a broadcast, an in-place
! reduction and a gather, on MPI_COMM_WORLD and on a split communicator.
program exchange_f08
  use mpi_f08
  implicit none
  integer :: rank, size, right, left, index, i, part_rank
  integer(kind=8) :: out, in, pair(2), sum, seed, parts(64), mine, back
  type(MPI_Status) :: status
  type(MPI_Request) :: requests(2), sending
  type(MPI_Comm) :: copy, part

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  mine = 0
!$omp parallel do reduction(+:mine)
  do i = 1, 100000
    mine = mine + mod(i * (rank + 5), 13)
  end do
!$omp end parallel do

  out = rank + mine
  call MPI_Sendrecv(out, 1, MPI_INTEGER8, right, 4, in, 1, MPI_INTEGER8, left, 4, &
                    MPI_COMM_WORLD, status)
  sum = in + status%MPI_TAG

  call MPI_Irecv(pair(1), 1, MPI_INTEGER8, left, 5, MPI_COMM_WORLD, requests(1))
  call MPI_Irecv(pair(2), 1, MPI_INTEGER8, right, 6, MPI_COMM_WORLD, requests(2))
  call MPI_Send(out, 1, MPI_INTEGER8, right, 5, MPI_COMM_WORLD)
  call MPI_Send(out, 1, MPI_INTEGER8, left, 6, MPI_COMM_WORLD)
  do i = 1, 2
    call MPI_Waitany(2, requests, index, status)
    sum = sum + status%MPI_SOURCE
  end do
  sum = sum + pair(1) + pair(2)

  call MPI_Isend(out, 1, MPI_INTEGER8, left, 7, MPI_COMM_WORLD, sending)
  call MPI_Recv(back, 1, MPI_INTEGER8, right, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Wait(sending, MPI_STATUS_IGNORE)
  sum = sum + back

  seed = 0
  if (rank == 0) seed = 777
  call MPI_Bcast(seed, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD)
  sum = sum + seed
  call MPI_Allreduce(MPI_IN_PLACE, sum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)

  call MPI_Comm_dup(MPI_COMM_WORLD, copy)
  call MPI_Comm_split(copy, rank / 2, rank, part)
  call MPI_Comm_rank(part, part_rank)
  call MPI_Gather(mine, 1, MPI_INTEGER8, parts, 1, MPI_INTEGER8, 0, part)
  if (part_rank == 0) sum = sum + parts(1)
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, sum, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD)
  else
    call MPI_Reduce(sum, seed, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD)
  end if
  if (rank == 0) print '(a,i0)', 'exchange_f08: ', sum
  call MPI_Comm_free(part)
  call MPI_Comm_free(copy)
  call MPI_Finalize()
end program exchange_f08
