! Macros used as statements, as test suites write them for cpp: a name
! alone on a line (right before a directive, after a blank line), and a
! name with an argument list, inside and outside constructs. Each stands
! for the statement the preprocessor puts in its place.
#define REPORT_START call report('start')
#define CHECK(condition) if (.not. (condition)) errors = errors + 1
#define COUNT_ONE count = count + 1

program macro_statements
  implicit none
  integer :: errors, count, total, i
  errors = 0
  count = 0
  total = 0
  REPORT_START

!$omp parallel master
  COUNT_ONE
  total = total + 1
!$omp end parallel master
  CHECK(total == 1)
  CHECK(count == 1)
!$omp parallel do reduction(+:total) private(i)
  do i = 1, 100
    CHECK(i > 0)
    total = total + i
  end do
!$omp end parallel do
  CHECK(total == 5051)
!$omp parallel reduction(+:count)
  COUNT_ONE
!$omp barrier
  COUNT_ONE
!$omp end parallel
  CHECK(count >= 3)
  call report('done')
  print '(a, i0)', 'errors ', errors
  if (errors /= 0) stop 1
contains
  subroutine report(what)
    character(len=*), intent(in) :: what
    print '(a)', what
  end subroutine report
end program macro_statements
