! default(none) around instrumented code: nested tasks, a task holding a
! parallel region, a combined construct and default(private) and
! default(firstprivate). The variables the inserted code uses must be
! given a data-sharing attribute, or the program does not compile.
program default_none_tasks
  implicit none
  integer :: n, total, i, spread, copies
  n = 10
  total = 0
!$omp parallel default(none) shared(n, total)
!$omp single
!$omp task default(none) shared(total) firstprivate(n)
!$omp task default(none) shared(total) firstprivate(n) if(n > 5)
!$omp atomic
  total = total + n
!$omp end task
!$omp taskwait
!$omp end task
!$omp task default(none) shared(total)
!$omp parallel default(none) shared(total) num_threads(2)
!$omp master
  total = total + 2
!$omp end master
!$omp end parallel
!$omp end task
!$omp end single
!$omp end parallel
  if (total /= 12) error stop 1

  spread = 0
!$omp parallel do default(none) shared(n, spread) schedule(static)
  do i = 1, n
!$omp task default(none) shared(spread) firstprivate(i)
!$omp atomic
    spread = spread + i
!$omp end task
  end do
!$omp end parallel do
  if (spread /= 55) error stop 2

  copies = 0
  i = 3
!$omp parallel default(private) shared(copies) num_threads(2)
  i = 1
!$omp task default(firstprivate) shared(copies)
!$omp atomic
  copies = copies + i
!$omp end task
!$omp end parallel
  if (copies < 1) error stop 3
  print *, 'total', total, 'spread', spread
end program default_none_tasks
