! Loops and calls as regions in Fortran: a call that is the action of a
! logical if or a function reference inside an expression is counted in
! a note; a labelled statement is left alone.
subroutine exchange(data, n)
  integer, intent(inout) :: data(n)
  integer, intent(in) :: n
  integer :: i, ierr, mpi_wtick
  do i = 1, n
    if (data(i) < 0) return
    call mpi_send(data(i), 1, ierr)
  end do
  if (n > 1) call MPI_Barrier(ierr)
  ierr = 2 * mpi_wtick()
  ierr = mpi_wtick()
10 call mpi_barrier(ierr)
end subroutine exchange
