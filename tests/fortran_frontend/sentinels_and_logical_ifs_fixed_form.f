      subroutine s(n)
      integer n
!$pomp inst begin(r)
      IF (N .LT. 0)
C     a comment line between
     &   RETURN
c$    if (n .eq. 1) return
!$pomp inst end(r)
      end
