! Inclusive and exclusive scans: the scan directive divides the body of a
! loop with an inscan reduction. It is a directive of its own, not the
! `section` of a `sections` construct.
program scan
  implicit none
  integer, parameter :: n = 100
  integer :: i, running, before, inclusive(n), exclusive(n), prefix
  running = 0
  before = 0
!$omp parallel do reduction(inscan, +: running)
  do i = 1, n
    running = running + i
!$omp scan inclusive(running)
    inclusive(i) = running
  end do
!$omp parallel
!$omp do reduction(inscan, +: before)
  do i = 1, n
    exclusive(i) = before
    !$OMP SCAN EXCLUSIVE(BEFORE)
    before = before + i
  end do
!$omp end do
!$omp end parallel
  prefix = 0
  do i = 1, n
    if (exclusive(i) /= prefix) error stop 1
    prefix = prefix + i
    if (inclusive(i) /= prefix) error stop 2
  end do
  print '(a, i0, 1x, i0)', 'scan totals ', running, before
end program
