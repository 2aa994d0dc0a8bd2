subroutine dev(x)
!$omp declare target
  x = 1
end subroutine
subroutine host(a)
  real :: a(10)
!$omp target
  a(1) = 2
!$omp end target
end subroutine
