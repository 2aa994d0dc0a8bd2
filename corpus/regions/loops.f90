! pomp-corpus: regions loops
! Outermost loops as regions in free form: do, do while, a labelled do,
! do concurrent, a named loop, and every way out of a loop: its end,
! exit and cycle, exit naming an outer construct, return, go to and stop.
module search
contains
  integer function find(values, wanted)
    integer, intent(in) :: values(:), wanted
    integer :: i
    do i = 1, size(values)
      if (values(i) == wanted) then
        find = i
        return
      end if
    end do
    find = -1
  end function find

  subroutine skip_odd(n, total)
    integer, intent(in) :: n
    integer, intent(out) :: total
    integer :: i
    total = 0
    outer: do i = 1, n
      if (mod(i, 2) == 1) cycle outer
      total = total + i
      if (total > 100) exit outer
    end do outer
  end subroutine skip_odd
end module search

program loops
  use search
  implicit none
  integer :: values(5) = [1, 2, 3, 4, 5]
  integer :: i, j, total, k
  real :: squares(4)

  total = 0
  do while (total < 10)
    total = total + 3
  end do
  print *, 'while', total

  do 10 i = 1, 3
    total = total + i
10 continue
  print *, 'labelled', total

  do concurrent (i = 1:4)
    squares(i) = real(i * i)
  end do
  print *, 'concurrent', squares

  call skip_odd(10, total)
  print *, 'skip_odd', total
  print *, 'find', find(values, 4), find(values, 9)

  check: if (total > 0) then
    do i = 1, 10
      if (i == 3) exit check
      total = total + 1
    end do
    total = -1
  end if check
  print *, 'check', total

  do i = 1, 5
    if (i == 2) go to 20
  end do
20 print *, 'goto', i

!$omp parallel do reduction(+:total)
  do i = 1, 4
    total = total + i
  end do
!$omp end parallel do
!$omp parallel do reduction(+:total)
  do i = 1, 4
    total = total + i
  end do
  do while (total > 1000)
    total = total - 1
  end do
  k = 0
  do j = 1, 2
!$omp parallel
    do i = 1, 2
!$omp atomic
      k = k + 1
    end do
!$omp end parallel
  end do
  print *, 'omp', total, k > 0

  do i = 1, 3
    if (i == 2) stop
  end do
end program loops
