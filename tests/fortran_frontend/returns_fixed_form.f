      subroutine s(n)
      integer n
C$POMP INST BEGIN(r)
      if (n .gt. 1)
c       a comment line
     &   return
   10 return
c$    if (n .gt. 4) return
C$POMP INST END(r)
      end
