subroutine s(n, a)
  integer, intent(in) :: n
  real :: a(n)
  integer :: i, j
!$omp parallel do
  do i = 1, n
    a(i) = 0
  end do
  a(1) = 1
!$omp parallel do simd collapse(2)
  do i = 1, n
    do j = 1, n
      a(i) = a(i) + j
    enddo
  end do

!$omp end parallel do simd
  !$omp parallel do &
  !$omp & schedule(static)
  do concurrent (i = 1:n)
    a(i) = 2
  end do
end subroutine
