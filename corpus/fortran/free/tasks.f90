! Tasks: task, taskwait, taskgroup, taskloop, a recursive task tree.
module task_tree
  implicit none
contains
  recursive integer function fib(n) result(f)
    integer, intent(in) :: n
    integer :: a, b
    if (n < 2) then
      f = n
      return
    end if
!$omp task shared(a) firstprivate(n)
    a = fib(n - 1)
!$omp end task
!$omp task shared(b) firstprivate(n)
    b = fib(n - 2)
!$omp end task
!$omp taskwait
    f = a + b
  end function fib
end module task_tree

program tasks
  use task_tree
  implicit none
  integer :: result, i, group_total, loop_total

  result = 0
!$omp parallel
!$omp single
  result = fib(15)
!$omp end single
!$omp end parallel
  if (result /= 610) error stop 1

  group_total = 0
!$omp parallel
!$omp single
!$omp taskgroup
  do i = 1, 10
!$omp task firstprivate(i) shared(group_total)
!$omp atomic
    group_total = group_total + i
!$omp end task
  end do
!$omp end taskgroup
  if (group_total /= 55) error stop 2
!$omp end single
!$omp end parallel

  loop_total = 0
!$omp parallel
!$omp single
!$omp taskloop grainsize(4) shared(loop_total)
  do i = 1, 40
!$omp atomic
    loop_total = loop_total + i
  end do
!$omp end taskloop
!$omp end single
!$omp end parallel
  if (loop_total /= 820) error stop 3

  print '(a, i0)', 'fib(15) = ', result
  print '(a, i0)', 'taskgroup: ', group_total
  print '(a, i0)', 'taskloop: ', loop_total
end program tasks
