! A token goes round the ranks three times, with MPI's Fortran 77 binding
! (mpif.h); each rank adds what its threads computed.
program ring_mpifh
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, size, round, next, previous, i
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=8) :: local, token, total

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  local = 0
!$omp parallel do reduction(+:local)
  do i = 1, 200000
    local = local + mod(i, 7) * (rank + 1)
  end do
!$omp end parallel do
  token = 0
  next = mod(rank + 1, size)
  previous = mod(rank + size - 1, size)
  do round = 1, 3
    if (rank == 0) then
      token = token + local
      call MPI_SEND(token, 1, MPI_INTEGER8, next, round, MPI_COMM_WORLD, ierr)
      call MPI_RECV(token, 1, MPI_INTEGER8, previous, round, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_RECV(token, 1, MPI_INTEGER8, previous, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
      token = token + local + status(MPI_TAG)
      call MPI_SEND(token, 1, MPI_INTEGER8, next, round, MPI_COMM_WORLD, ierr)
    end if
  end do
  call MPI_ALLREDUCE(local, total, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0)', 'ring_mpifh: token ', token, ', sum ', total
  call MPI_FINALIZE(ierr)
end program ring_mpifh
