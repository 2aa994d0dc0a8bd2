subroutine count_even(n, count)
  implicit none
  integer, intent(in) :: n
  integer, intent(out) :: count
  integer :: i
  count = 0
  !$omp parallel do
  do i = 1, n
    if (mod(i, 2) == 0) then
      !$omp critical
      count = count + 1
      !$omp end critical
    end if
  end do
  !$omp end parallel do
end subroutine count_even
