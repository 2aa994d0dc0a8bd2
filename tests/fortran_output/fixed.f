c     Fixed form: continued directives, default(none), lock routines,
c     a conditional P$ line and a user region.
      program fixed
      use omp_lib
      implicit none
      integer i, total, counter, n
      integer(kind=omp_lock_kind) lck
      logical got
      total = 0
      counter = 0
      n = 50
CP$   counter = 100
      call omp_init_lock(lck)
!$omp parallel do default(none) shared(n) reduction(+:total)
!$omp& private(i) schedule(static)
      do 10 i = 1, n
        total = total + i
   10 continue
!$omp parallel shared(lck, counter) num_threads(2) if(n .gt. 10)
      call omp_set_lock(lck)
      counter = counter + 1
      call omp_unset_lock(lck)
!$omp single
      got = omp_test_lock(lck)
      if (got) call omp_unset_lock(lck)
!$omp end single
!$omp end parallel
      call omp_destroy_lock(lck)
      call work(total)
      print *, 'total', total, 'counter', counter
      end

      subroutine work(t)
      integer t
!$pomp inst begin(work)
      t = t + 1
!$pomp inst end(work)
      end
