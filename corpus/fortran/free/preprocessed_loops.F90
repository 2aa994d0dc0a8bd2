! Loops as electronic structure codes write them for cpp: a serial-only
! cache test wraps an IF and its END IF in separate `#if !defined(_OPENMP)`
! blocks inside a parallel do, and `#ifdef _OPENMP` chooses code; the
! compilation with OpenMP decides both, so the loop reads as one construct.
program preprocessed_loops
  implicit none
  integer, parameter :: n = 1000
  integer :: ig
  real(8) :: q(n), work(n), q1, total
  do ig = 1, n
    q(ig) = real(mod(ig, 7), 8)
  end do
  q1 = -1.0d0
  work = 0.0d0
!$omp parallel do default(shared) private(ig)
  do ig = 1, n
#if !defined(_OPENMP)
    if (abs(q(ig) - q1) > 1.0d-6) then
#endif
      work(ig) = 2.0d0 * q(ig) + 1.0d0
#if !defined(_OPENMP)
      q1 = q(ig)
    end if
#endif
  end do
!$omp end parallel do
  total = 0.0d0
#ifdef _OPENMP
!$omp parallel do reduction(+:total)
  do ig = 1, n
    total = total + work(ig)
  end do
!$omp end parallel do
#else
  total = sum(work)
#endif
  print '(a, f10.1)', 'total ', total
  if (total /= 7006.0d0) then
    print *, 'FAILED'
    stop 1
  end if
  print *, 'preprocessed loops: ok'
end program preprocessed_loops
