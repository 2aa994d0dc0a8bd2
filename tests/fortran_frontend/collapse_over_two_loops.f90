subroutine s(a)
  real :: a(4, 4)
  integer :: i, j
!$omp do collapse(2)
  do i = 1, 4
    do j = 1, 4
      a(i, j) = 0
    end do
    do j = 1, 4
      a(i, j) = 1
    end do
  end do
end subroutine
