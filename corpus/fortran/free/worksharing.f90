! Sections (with and without a leading `section`), single with
! `end single copyprivate` and `nowait`, workshare, master, masked,
! barrier, flush, and the combined parallel sections / workshare.
program worksharing
  use omp_lib
  implicit none
  integer :: first, second, third, shared_value, master_count, masked_count
  integer :: a(8), b(8), c(8)
  logical :: flag

  first = 0; second = 0; third = 0
!$omp parallel
!$omp sections
  first = 1
!$omp section
  second = 2
!$omp section
  third = 3
!$omp end sections
!$omp end parallel
  if (first + second + third /= 6) error stop 1

!$omp parallel sections
!$omp section
  first = 10
!$omp section
  second = 20
!$omp end parallel sections
  if (first + second /= 30) error stop 2

  shared_value = 0
!$omp parallel private(third)
!$omp single
  third = 42
!$omp end single copyprivate(third)
  if (third /= 42) error stop 3
!$omp single
  shared_value = third
!$omp end single nowait
!$omp barrier
  if (shared_value /= 42) error stop 4
!$omp end parallel

  a = 1
  b = 2
!$omp parallel
!$omp workshare
  c = a + b
!$omp end workshare
!$omp end parallel
  if (sum(c) /= 24) error stop 5

!$omp parallel workshare
  c = c * 2
!$omp end parallel workshare
  if (sum(c) /= 48) error stop 6

  master_count = 0
  masked_count = 0
  flag = .false.
!$omp parallel
!$omp master
  master_count = master_count + 1
  flag = .true.
!$omp flush(flag)
!$omp end master
!$omp masked filter(0)
  masked_count = masked_count + 1
!$omp end masked
!$omp barrier
!$omp flush
!$omp end parallel
  if (master_count /= 1 .or. masked_count /= 1 .or. .not. flag) error stop 7

  print '(a, 3i4)', 'sections: ', first, second, third
  print '(a, i0)', 'single: ', shared_value
  print '(a, i0)', 'workshare: ', sum(c)
  print '(a, 2i2)', 'master, masked: ', master_count, masked_count
end program worksharing
