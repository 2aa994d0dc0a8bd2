subroutine s(a, n, m)
  integer :: n, m, i3, j, k, a(n, m)
!$omp parallel do collapse(2)
  do i3 = 0, n - 1 ! rows
!$omp tile sizes(2)
    do 10 , J = f(1, 2), &
        m
      a(i3 + 1, j) = 1
10  continue
  end do
!$omp do
  DO WHILE (k < 3)
    k = k + 1
  END DO
!$omp simd
  do concurrent (k = 1:n)
    a(k, 1) = 0
  end do
end subroutine
