subroutine s(k)
  integer :: k
!$pomp inst begin(r)
  goto (10) k
  k = 0
!$pomp inst end(r)
10 continue
end subroutine
