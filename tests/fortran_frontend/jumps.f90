subroutine s(n, k)
  integer :: n, k, i
!$pomp inst begin(r)
  outer: do i = 1, n
    if (i == 2) cycle
    if (i == 3) exit outer
    do while (k > 0)
      exit
    end do
    go to 10
    goto (10, 20) k
    if (k) 10, 20, 30
10  continue
  end do outer
!$pomp inst end(r)
20 k = 1
30 return
end subroutine
