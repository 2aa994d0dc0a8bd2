c     User regions left by jumps in fixed form: a go to out of a
c     labelled do loop (two loops sharing a label), a go to whose label
c     ends the loop inside the region, exit and cycle, and a go to
c     continued over two lines. The checking library rejects a region
c     left open or closed twice.
      program jumps
      implicit none
      integer n, total, sums(6)
      integer search
!$omp parallel do private(total)
      do 5 n = 1, 6
        total = search(n)
        sums(n) = total
    5 continue
!$omp end parallel do
      print *, 'sums', sums
      end

      integer function search(n)
      implicit none
      integer n, i, j, k
      k = 0
      do 20 i = 1, 5
      do 20 j = 1, 5
C$POMP INST BEGIN(cell)
        if (j .eq. 2) go to 20
        if (i .eq. 3) cycle
        if (i * j .gt. 3 * n) go
     &    to 30
        if (j .eq. 5) exit
        k = k + i * j
C$POMP INST END(cell)
   20 continue
      search = k
      return
   30 search = -k
      end
