c     The 2002 proposal's directives in fixed form, with every sentinel.
      integer function steps(n)
      implicit none
      integer n, i
C$OMP INST BEGIN(steps)
      steps = 0
      do 10 i = 1, n
         steps = steps + i
         if (steps .gt. 20)
     &      return
   10 continue
*$omp inst end(steps)
      end

      program proposal
      implicit none
      integer total, hidden, steps
CP$   integer only_instrumented
      external steps
      total = 0
      hidden = 0
*P$   only_instrumented = 7
c$omp inst init
!$omp inst begin(all)
c$omp parallel reduction(+:total)
      total = total + 1
c$omp end parallel
c$omp inst off
c$omp inst on
c$omp noinstrument
c$omp parallel reduction(+:hidden)
      hidden = hidden + 1
c$omp end parallel
c$omp instrument
c$pomp inst begin(pomp)
      total = total + steps(3) + steps(10)
*$POMP INST END(POMP)
cp$   total = total + only_instrumented
!P$   total = total + 100
!$omp inst end(all)
c$omp inst finalize
      print *, 'total', total, 'hidden', hidden
      end
