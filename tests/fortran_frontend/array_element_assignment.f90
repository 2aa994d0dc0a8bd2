subroutine s
  real :: a(3)
  a(i) = 1.0
end subroutine
