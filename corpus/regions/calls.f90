! pomp-corpus: regions mpi,loops
! Call sites as regions in Fortran, with a small MPI-like library defined
! here: call statements in any case, a function reference that is the
! whole value assigned, calls in a loop and in an OpenMP construct, and
! a call that is the action of a logical if, which is left as written.
module fake_mpi
  implicit none
  integer :: sent = 0, barriers = 0
contains
  subroutine mpi_send(buffer, count, ierr)
    integer, intent(in) :: buffer(:), count
    integer, intent(out) :: ierr
!$omp atomic
    sent = sent + count
    ierr = buffer(1) * 0
  end subroutine mpi_send

  subroutine MPI_Barrier(ierr)
    integer, intent(out) :: ierr
!$omp atomic
    barriers = barriers + 1
    ierr = 0
  end subroutine MPI_Barrier

  integer function mpi_wtick()
    mpi_wtick = 1
  end function mpi_wtick
end module fake_mpi

program calls
  use fake_mpi
  implicit none
  integer :: data(3) = [1, 2, 3]
  integer :: ierr, step, tick

  do step = 1, 3
    call MPI_SEND(data, 3, ierr)
    call mpi_barrier(ierr)
  end do
  tick = mpi_wtick()
  if (tick > 0) call MPI_Barrier(ierr)
  print *, 'tick', tick, 2 * mpi_wtick()
!$omp parallel num_threads(2) private(ierr)
  call mpi_send(data, 1, ierr)
!$omp end parallel
  print *, 'sent', sent, 'barriers', barriers
end program calls
