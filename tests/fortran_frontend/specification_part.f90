subroutine s(a, n)
  use omp_lib
  implicit none
  include 'consts.h'
  integer :: n, i
  real :: a(n), b
  real :: f, x
  parameter (m = 3)
  data b /1.0/
  f(x) = x + 1.0
100 format(i5)
#ifdef DEBUG
  logical :: dbg
#endif
  a(1) = f(2.0)
  block
    integer :: k
    k = 1
  end block
end subroutine
