C pomp failed (fixed): pomp2 runtime: stderr: pomp: POMP_TRACE_LIMIT=N reached: N events were dropped; the trace is incomplete; found by the program generator (fixed seed 368563); check with --interface pomp2
C pomp input: preprocessed
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
       do i1 = 0, 6
C$OMP   parallel if(parallel: n > 7)
        do i2 = 0, 2
         do i3 = 0, 3
C$OMP     parallel do
          do i4 = 0, 0
          end do
C$OMP     parallel sections
C$OMP     section
C$OMP     end parallel sections
         end do
        end do
C$OMP   end parallel
       end do
       res = 3 * r0 + 5 * r1 + 11 * lp + 13 * lin
       do k = 0, 511
        res = res + a(k) * (mod(k, 7) + 1)
       end do
      end function kernel0
      program main
       use pomp_generated_globals
       implicit none
       integer(8), external :: kernel0
       integer(8) :: value
       call omp_init_lock(lk)
       call omp_init_nest_lock(nlk)
       value = kernel0(5)
       print '(a,i0)', 'kernel0 ', value
       print '(a,4(1x,i0))', 'globals', g0, g1, g2, g3
       call omp_destroy_lock(lk)
       call omp_destroy_nest_lock(nlk)
      end program main
