subroutine f(a, n)
  integer :: n, i, j, t
  real :: a(n, n)
!$omp parallel do
!$omp tile sizes(4, 4) apply(grid: interchange, nothing)
  do i = 1, n
    do j = 1, n
      a(j, i) = 0
    end do
  end do
!$omp taskloop grainsize(strict: 4) nogroup
  do i = 2, n
    !$omp task_iteration depend(inout: a(i, 1)) &
    !$omp&               depend(in: a(i - 1, 1))
    a(i, 1) = a(i, 1) + a(i - 1, 1)
  end do
!$omp end taskloop
!$omp fuse
  do i = 1, n
    a(i, 1) = 1
  end do
  do j = 1, n
    a(1, j) = 2
  end do
!$omp end fuse
  t = 0
!$omp parallel do reduction(inscan, +: t)
  do i = 1, n
    t = t + int(a(i, 1))
!$omp scan inclusive(t)
    a(i, 2) = t
  end do
!$omp target teams workdistribute
  a = a + 1
!$omp end target teams workdistribute
!$omp target_data map(tofrom: a)
!$omp parallel
  a(1, 1) = 0
!$omp end parallel
!$omp end target_data
end subroutine
