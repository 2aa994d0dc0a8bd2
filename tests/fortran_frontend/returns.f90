subroutine s(n)
  integer :: n
!$pomp inst begin(r)
  if (n > 1) return
  if (n > 2) then
    return
  end if
  if (n > 3 .and. &
      n < 9) &
    & RETURN ! done
10 return 1
  n = 1; return
  returned = 1
!$  if (n > 4) return
!$pomp inst end(r)
end subroutine
