subroutine s(a, n)
  integer :: n, i, a(n)
!$omp do
!$omp flatten
  do i = 1, n
    a(i) = 0
  end do
!$omp end flatten
end subroutine
