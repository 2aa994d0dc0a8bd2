c     User regions left by RETURN in fixed form: plain and labelled
c     returns, logical IF statements on one line and continued over
c     several (with a comment line between), a return after a label the
c     code jumps to, a `c$` conditional line, and text past column 72.
      subroutine classify(n, k, visits)
      implicit none
      integer n, k, visits
C$POMP INST BEGIN(classify)
!$omp atomic
      visits = visits + 1
      if (n .gt. 100) return
      if (n .gt. 50) then
c$pomp inst begin(large)
         k = k + 1
         if (n .eq. 60 .or.
c           sixty or seventy
     &       n .eq. 70)
     &   return
         if (n .eq. 90) goto 10
         k = k + 2
   10    return
*$pomp inst end(large)
      end if
      IF(N.LT.0)RETURN                                                  00001234
c$    if (n .eq. 1) return
!$pomp inst end(classify)
      k = k + 10
      end

      integer function modtwo(n)
      implicit none
      integer n
*$pomp inst begin(modtwo)
      modtwo = 0
      if (mod(n, 2) .eq. 0) return
      modtwo = 1
*$pomp inst end(modtwo)
      end

      program exits
      implicit none
      integer i, k, total, odd, visits
      integer modtwo
      external modtwo
      integer inputs(9)
      data inputs /200, 60, 70, 90, 55, -5, 1, 7, 2/
      total = 0
      visits = 0
!$omp parallel do private(k) reduction(+:total) shared(visits)
      do 20 i = 1, 9
         k = 0
         call classify(inputs(i), k, visits)
         total = total + k
   20 continue
!$omp end parallel do
      odd = 0
      do 30 i = 1, 9
         odd = odd + modtwo(i)
   30 continue
      print *, 'total', total, 'odd', odd, 'visits', visits
c     200: 0; 60, 70: 1; 90: 1; 55: 3; -5: 0; 1: 0; 7, 2: 10 each.
      if (total .ne. 1 + 1 + 1 + 3 + 10 + 10) error stop 1
      if (odd .ne. 5) error stop 2
      if (visits .ne. 9) error stop 3
      end
