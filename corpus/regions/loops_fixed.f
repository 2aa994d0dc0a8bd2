! pomp-corpus: regions loops,functions
! Outermost loops in fixed form: labelled loops sharing a terminal
! statement, a loop left by return and by stop, a loop around an
! OpenMP construct.
      integer function first(n, limit)
      integer n, limit, i
      do 20 i = 1, n
         if (i .gt. limit) then
            first = i
            return
         end if
   20 continue
      first = -1
      end

      program fixed
      integer i, j, total, first
      total = 0
      do 30 i = 1, 3
      do 30 j = 1, 3
         total = total + i * j
   30 continue
      print *, 'shared', total
      print *, 'first', first(10, 4), first(3, 4)
      do 40 i = 1, 2
!$omp parallel reduction(+:total)
         total = total + 1
!$omp end parallel
   40 continue
      print *, 'omp', total .gt. 0
      do i = 1, 5
         if (i .eq. 3) stop
      end do
      end
