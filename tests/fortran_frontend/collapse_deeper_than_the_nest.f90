subroutine s(a)
  real :: a(4)
  integer :: i
!$omp do collapse(2)
  do i = 1, 4
    a(i) = 0
  end do
end subroutine
