! `begin metadirective` ... `end metadirective` around a loop, and a
! metadirective without a block. pomp leaves both as written (the construct
! they select is the compiler's choice) and instruments the code around and
! inside them. Compilers without metadirectives (before OpenMP 5.1) build
! the plain constructs of the `#else` branches.
program metadirectives
  implicit none
  integer, parameter :: n = 200
  integer :: i, total, hits
  total = 0
  hits = 0
#if _OPENMP >= 202011
!$omp begin metadirective when(user={condition(n > 100)}: parallel do reduction(+:total)) &
!$omp& default(parallel do reduction(+:total))
  do i = 1, n
    total = total + i
  end do
!$omp end metadirective
#else
!$omp parallel do reduction(+:total)
  do i = 1, n
    total = total + i
  end do
!$omp end parallel do
#endif
!$omp parallel reduction(+:hits)
#if _OPENMP >= 202011
!$omp metadirective when(user={condition(.true.)}: barrier) default(barrier)
#else
!$omp barrier
#endif
  hits = hits + 1
!$omp end parallel
  print '(a, i0)', 'total ', total
  if (total /= n * (n + 1) / 2 .or. hits < 1) stop 1
  print *, 'metadirectives: ok'
end program metadirectives
