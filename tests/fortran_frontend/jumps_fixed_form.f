      subroutine s(n)
      integer n, i, j
C$POMP INST BEGIN(r)
      do 20 i = 1, n
      do 20 j = 1, n
        if (j .eq. 2) go to 20
        if (i .eq. 3) go
     &    to 30
   20 continue
C$POMP INST END(r)
   30 return
      end
