! User regions left by `return`: every way out of a region closes it
! first. Plain and labelled returns, returns after `;`, logical `if`
! statements on one line and continued over several, nested regions,
! `!$` conditional lines, and a function. The checking library rejects
! a region that is left open.
module exits
  implicit none
  integer :: visits = 0
contains
  subroutine classify(n, k)
    integer, intent(in) :: n
    integer, intent(inout) :: k
!$pomp inst begin(classify)
!$omp atomic
    visits = visits + 1
    if (n > 100) return
    if (n > 50) then
!$pomp inst begin(large)
      k = k + 1
      if (n == 60 .or. &
          n == 70) &
        & return ! sixty or seventy
      if (n == 80) return; k = k + 100
      if (n == 90) go to 10
      k = k + 2
10    return
!$pomp inst end(large)
    end if
    if (n < 0) then
      k = k - 1; return
    end if
    IF ( ')' == ')' .and. n == 0 ) RETURN
!$  if (n == 1) return
!$pomp inst end(classify)
    k = k + 10
  end subroutine classify

  integer function parity(n) result(p)
    integer, intent(in) :: n
!$pomp inst begin(parity)
    p = 0
    if (mod(n, 2) == 0) return
    p = 1
!$pomp inst end(parity)
  end function parity
end module exits

program user_region_exits
  use exits
  implicit none
  integer :: i, k, total, odd
  integer, parameter :: inputs(11) = [200, 60, 70, 80, 90, 55, -5, 0, 1, 7, 2]
  total = 0
!$omp parallel do private(k) reduction(+:total)
  do i = 1, size(inputs)
    k = 0
    call classify(inputs(i), k)
    total = total + k
  end do
!$omp end parallel do
  odd = 0
  do i = 1, 9
    odd = odd + parity(i)
  end do
  print *, 'total', total, 'odd', odd, 'visits', visits
  ! 200: 0; 60, 70, 80: 1; 90: 101; 55: 103; -5: -1; 0: 0; 1: 0 (10
  ! without OpenMP); 7, 2: 10 each.
  if (total /= 3 + 101 + 103 - 1 + 10 + 10) error stop 1
  if (odd /= 5) error stop 2
  if (visits /= 11) error stop 3
end program user_region_exits
