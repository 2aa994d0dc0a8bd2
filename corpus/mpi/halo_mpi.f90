! A halo exchange between neighbouring ranks with the `use mpi` binding:
! non-blocking sends and receives completed by MPI_WAITALL, a receive
! tested until it arrives, and a reduction over half of the ranks.
module halo_cells
  implicit none
  integer, parameter :: cells = 2048
  integer(kind=8), parameter :: modulus = 1000003
contains
  subroutine relax(u, next)
    integer(kind=8), intent(inout) :: u(0:cells + 1), next(0:cells + 1)
    integer :: i
!$omp parallel do
    do i = 1, cells
      next(i) = mod(u(i - 1) + 2 * u(i) + u(i + 1), modulus)
    end do
!$omp end parallel do
    u(1:cells) = next(1:cells)
  end subroutine relax
end module halo_cells

program halo_mpi
  use mpi
  use halo_cells
  implicit none
  integer :: ierr, rank, size, left, right, step, i, half
  integer :: requests(4)
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=8) :: u(0:cells + 1), next(0:cells + 1), local, total, probe, answer, shifted
  logical :: arrived

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  left = rank - 1
  right = rank + 1
  if (left < 0) left = MPI_PROC_NULL
  if (right >= size) right = MPI_PROC_NULL
  u = 0
  next = 0
  do i = 1, cells
    u(i) = mod(rank * cells + i, 89)
  end do
  do step = 1, 20
    call MPI_IRECV(u(0), 1, MPI_INTEGER8, left, 1, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_IRECV(u(cells + 1), 1, MPI_INTEGER8, right, 2, MPI_COMM_WORLD, requests(2), ierr)
    call MPI_ISEND(u(1), 1, MPI_INTEGER8, left, 2, MPI_COMM_WORLD, requests(3), ierr)
    call MPI_ISEND(u(cells), 1, MPI_INTEGER8, right, 1, MPI_COMM_WORLD, requests(4), ierr)
    call MPI_WAITALL(4, requests, MPI_STATUSES_IGNORE, ierr)
    call relax(u, next)
  end do

  probe = rank * 7
  answer = -1
  call MPI_IRECV(answer, 1, MPI_INTEGER8, mod(rank + size - 1, size), 3, MPI_COMM_WORLD, &
                 requests(1), ierr)
  call MPI_SEND(probe, 1, MPI_INTEGER8, mod(rank + 1, size), 3, MPI_COMM_WORLD, ierr)
  arrived = .false.
  do while (.not. arrived)
    call MPI_TEST(requests(1), arrived, status, ierr)
  end do
  call MPI_SENDRECV(probe, 1, MPI_INTEGER8, mod(rank + 1, size), 4, shifted, 1, MPI_INTEGER8, &
                    mod(rank + size - 1, size), 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  answer = answer + shifted

  local = 0
!$omp parallel do reduction(+:local)
  do i = 1, cells
    local = local + u(i)
  end do
!$omp end parallel do
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_REDUCE(mod(local, modulus) + answer, total, 1, MPI_INTEGER8, MPI_SUM, 0, half, ierr)
  if (rank == 0) print '(a,i0)', 'halo_mpi: checksum ', total
  call MPI_COMM_FREE(half, ierr)
  call MPI_FINALIZE(ierr)
end program halo_mpi
