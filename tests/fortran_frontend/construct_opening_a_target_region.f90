subroutine s(a)
  real :: a(4)
!$omp target map(tofrom: a)
!$omp parallel
  a(1) = 1
!$omp end parallel
!$omp end target
end subroutine
