subroutine s(a, b, n)
  integer :: n, i, t, a(n), b(n)
  t = 0
!$omp parallel do reduction(inscan, +: t)
  do i = 1, n
    t = t + a(i)
!$omp scan inclusive(t)
    b(i) = t
  end do
!$omp do reduction(inscan, +: t)
  do i = 1, n
    b(i) = t
    !$OMP SCAN EXCLUSIVE(T)
    t = t + a(i)
  end do
end subroutine
