subroutine s(a)
  real :: a(4, 4)
  integer :: i, j
  real :: t
!$omp do collapse(2)
  do i = 1, 4
    t = i
    do j = 1, 4
      a(i, j) = t
    end do
    t = 0
  end do
end subroutine
