! libgomp fails, uninstrumented: gfortran shares the index of a loop inside `parallel loop` (gfortran 12, every run)
!
! The index of a sequential loop inside a parallel region is private to
! each of the region's threads. gfortran 12 makes it so under `parallel
! do`, and under `parallel` with a `loop` construct inside, but not under
! the combined `parallel loop` (nor `teams loop`): there every thread
! uses the program's own `j`, which this program sees by its address and
! stops on. Where such loops update memory, the threads' updates race:
! free form seed 366414 printed another sum now and then (about one run
! in a hundred). The program generator writes `parallel loop` in Fortran
! only for toolchains that compile it right (LIBGOMP_FAULTS in
! tests/generated.rs).
program parallel_loop_shares_inner_index
  implicit none
  integer :: i, j, seen
  integer(8) :: outside
  outside = loc(j)
  seen = 0
  !$omp parallel loop reduction(+:seen)
  do i = 1, 8
    do j = 1, 2
    end do
    if (loc(j) == outside) seen = seen + 1
  end do
  if (seen > 0) call abort()
  print '(a)', 'each thread had its own j'
end program parallel_loop_shares_inner_index
