! Constructs whose code admits no inserted call: an atomic update and a
! critical section inside workshare (which allows only assignments and
! OpenMP constructs, no CALL statement), a simd loop, and parallel regions
! inside loop regions and under order(concurrent), where no OpenMP runtime
! routine may be called. pomp measures the enclosing constructs and leaves
! what is inside alone.
program restricted_regions
  implicit none
  integer, parameter :: n = 64
  integer :: a(n), b(n), counter, i, total
  a = 1
  b = 0
  counter = 0
  total = 0
!$omp parallel
!$omp workshare
  b = a + 2
!$omp atomic
  counter = counter + 1
!$omp critical (tally)
  total = total + sum(b)
!$omp end critical (tally)
!$omp end workshare
!$omp end parallel
  print '(a,3(1x,i0))', 'workshare', counter, total, sum(b)

!$omp parallel workshare
  a = b * 2
!$omp atomic
  counter = counter + 10
!$omp end parallel workshare
  print '(a,2(1x,i0))', 'parallel workshare', counter, sum(a)

  total = 0
!$omp parallel do simd reduction(+:total)
  do i = 1, n
    total = total + a(i)
  end do
!$omp end parallel do simd
  print '(a,1x,i0)', 'simd', total

  total = 0
!$omp parallel do order(concurrent) reduction(+:total)
  do i = 1, 4
!$omp parallel num_threads(2) shared(total, i)
!$omp single
    total = total + i
!$omp end single
!$omp end parallel
  end do
!$omp end parallel do
  print '(a,1x,i0)', 'order(concurrent)', total

  total = 0
!$omp parallel loop reduction(+:total)
  do i = 1, 4
!$omp parallel num_threads(2) shared(total, i)
!$omp single
    total = total + 2 * i
!$omp end single
!$omp end parallel
  end do
!$omp end parallel loop
  print '(a,1x,i0)', 'loop', total
end program restricted_regions
