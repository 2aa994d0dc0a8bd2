c     a comment line, not code
      program fixed
      integer i, s
      s = 0
!$omp parallel do reduction(+:s)
      do i = 1,
     &  8
        s = s + i
      end do
      print *, s
      end
