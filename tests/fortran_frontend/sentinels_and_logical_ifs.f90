subroutine s(n)
  integer :: n
  !$ integer :: t
!P$ call pomp_only()
!$pomp inst begin(r)
  if (n > 0 .and. &
      n < 9) return
  !$ if (n == 5) go to 10
  if (n) 10, 10, 10
!$pomp inst end(r)
10 continue
end subroutine
