! pomp-corpus: regions loops,functions
! Loops measured inside hand-marked user regions in free form, left by
! jumps that leave the user region too: every region must end inner
! first. A return and a go to out of the region from a loop in a region;
! exit and cycle beside them, which end the loop once; a user region in
! a loop in a user region; a user region in a loop, left from a loop
! inside it; stop from a loop in a region of the main program.
module lookup
contains
  integer function first_at_least(values, wanted)
    integer, intent(in) :: values(:), wanted
    integer :: i
    first_at_least = -1
!$pomp inst begin(search)
    do i = 1, size(values)
      if (values(i) == 0) cycle
      if (values(i) < 0) exit
      if (values(i) >= wanted) then
        first_at_least = i
        return
      end if
    end do
!$pomp inst end(search)
  end function first_at_least

  integer function count_to(n)
    integer, intent(in) :: n
    integer :: k
    k = 0
!$pomp inst begin(counting)
    do while (k < 100)
      if (k == n) go to 10
      k = k + 1
    end do
    k = -k
!$pomp inst end(counting)
10  count_to = k
  end function count_to

  integer function layered(n)
    integer, intent(in) :: n
    integer :: k
    layered = -1
!$pomp inst begin(outer)
    do k = 1, n
!$pomp inst begin(inner)
      if (k * k > n) then
        layered = k
        return
      end if
!$pomp inst end(inner)
    end do
!$pomp inst end(outer)
  end function layered

  integer function grid_search(n, wanted)
    integer, intent(in) :: n, wanted
    integer :: i, j
    grid_search = -1
    do i = 0, n - 1
!$pomp inst begin(row)
      do j = 0, n - 1
        if (i * n + j == wanted) then
          grid_search = i
          return
        end if
      end do
!$pomp inst end(row)
    end do
  end function grid_search
end module lookup

program loops_in_user_regions
  use lookup
  implicit none
  integer :: values(6) = [1, 0, 7, 4, -2, 9]
  integer :: total, odd, i
  print *, 'first_at_least', first_at_least(values, 5), first_at_least(values, 50)
  print *, 'count_to', count_to(4), count_to(200)
  print *, 'layered', layered(5), layered(0)
  print *, 'grid_search', grid_search(4, 9), grid_search(2, 9)
  odd = 0
!$pomp inst begin(team)
!$omp parallel do reduction(+:odd)
  do i = 0, 8
    odd = odd + mod(i, 2)
  end do
!$omp end parallel do
!$pomp inst end(team)
  print *, 'odd', odd
  total = 0
!$pomp inst begin(finish)
  do
    total = total + 1
    if (total > 2) stop
  end do
!$pomp inst end(finish)
end program loops_in_user_regions
