C libgomp fails, uninstrumented too: the program hangs now and then; found by the program generator (fixed seed 147) as a hang of the instrumented program in about one run of seven with 2 threads; check with --interface pomp1
C The taskgroup with task_reduction on the initial thread, which no
C parallel region encloses, leaves libgomp's parallel regions after it
C freeing their teams while their workers still read them:
C libgomp-orphaned-task-reduction-hang.c shows it without pomp. With the
C loop around the parallel region run 1000 times instead of 6, this
C program hangs uninstrumented in every run.
      module pomp_generated_globals
       use omp_lib
       implicit none
       integer(8) :: g0 = 0, g1 = 0, g2 = 0, g3 = 0
       integer(omp_lock_kind) :: lk
       integer(omp_nest_lock_kind) :: nlk
      end module pomp_generated_globals
      function kernel0(n) result(res)
       use pomp_generated_globals
       implicit none
       integer, intent(in) :: n
       integer(8) :: res, r0, r1, lp, t, fp, lin
       integer(8) :: a(0:511)
       integer :: k, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12,
     & i13, i14, i15, i16
       r0 = 0
       r1 = 0
       lp = 0
       t = 0
       fp = 7
       lin = 3
       a = 0
       a(8) = a(8) + (1)
C$POMP  inst begin(region2)
C$OMP  taskgroup task_reduction(+:r0)
C$OMP  end taskgroup
C$OMP  atomic
       g0 = g0 + (8)
C$POMP  inst end(region2)
       res = 3 * r0 + 5 * r1 + 11 * lp + 13 * lin
       do k = 0, 511
        res = res + a(k) * (mod(k, 7) + 1)
       end do
      end function kernel0
      function kernel1(n) result(res)
       use pomp_generated_globals
       implicit none
       integer, intent(in) :: n
       integer(8) :: res, r0, r1, lp, t, fp, lin
       integer(8) :: a(0:511)
       integer :: k, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12,
     & i13, i14, i15, i16
       r0 = 0
       r1 = 0
       lp = 0
       t = 0
       fp = 7
       lin = 3
       a = 0
       do i1 = 0, 5
C$OMP   parallel
C$OMP   end parallel
       end do
C$OMP  single
C$OMP  end single
       res = 3 * r0 + 5 * r1 + 11 * lp + 13 * lin
       do k = 0, 511
        res = res + a(k) * (mod(k, 7) + 1)
       end do
      end function kernel1
      program main
       use pomp_generated_globals
       implicit none
       integer(8), external :: kernel0, kernel1
       integer(8) :: value
       call omp_init_lock(lk)
       call omp_init_nest_lock(nlk)
       value = kernel0(5)
       print '(a,i0)', 'kernel0 ', value
       value = kernel1(5)
       print '(a,i0)', 'kernel1 ', value
       print '(a,4(1x,i0))', 'globals', g0, g1, g2, g3
       call omp_destroy_lock(lk)
       call omp_destroy_nest_lock(nlk)
      end program main
