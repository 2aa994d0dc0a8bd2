! Critical (named and unnamed), atomic with and without `end atomic`, with
! statements continued over several lines, atomic capture, and locks.
! Text that only mentions a lock routine is no call: call omp_set_lock(l).
program synchronisation
  use omp_lib
  implicit none
  integer :: i, counter, named_counter, atomic_counter, captured, max_captured
  integer(omp_lock_kind) :: lock
  integer(omp_nest_lock_kind) :: nest
  integer :: locked_total, nest_total
  character(len=32) :: note

  counter = 0
  named_counter = 0
  atomic_counter = 0
  max_captured = 0
!$omp parallel do private(captured)
  do i = 1, 200
!$omp critical
    counter = counter + 1
!$omp end critical
!$omp critical (named_update)
    named_counter = named_counter + 2
!$omp end critical (named_update)
!$omp atomic
    atomic_counter = atomic_counter + &
                     1
!$omp atomic update
    atomic_counter = &
      atomic_counter &
      + 1
!$omp end atomic
!$omp atomic capture
    captured = atomic_counter
    atomic_counter = atomic_counter + 1
!$omp end atomic
!$omp critical (maximum)
    max_captured = max(max_captured, captured)
!$omp end critical (maximum)
  end do
  if (counter /= 200) error stop 1
  if (named_counter /= 400) error stop 2
  if (atomic_counter /= 600) error stop 3
  if (max_captured < 2 .or. max_captured > 599) error stop 4

  locked_total = 0
  nest_total = 0
  note = 'call omp_unset_lock(lock)'
  call omp_init_lock(lock)
  call omp_init_nest_lock(nest)
!$omp parallel do
  do i = 1, 100
    call omp_set_lock(lock)
    locked_total = locked_total + i
    call omp_unset_lock(lock)
    call omp_set_nest_lock(nest)
    call omp_set_nest_lock(nest)
    nest_total = nest_total + 1
    call omp_unset_nest_lock(nest)
    call omp_unset_nest_lock(nest)
  end do
  do while (.not. omp_test_lock(lock))
  end do
  call omp_unset_lock(lock)
  call omp_destroy_nest_lock(nest)
  call omp_destroy_lock(lock)
  if (locked_total /= 5050 .or. nest_total /= 100) error stop 5

  print '(a, 3i5)', 'critical, named, atomic: ', counter, named_counter, atomic_counter
  print '(a, 2i6)', 'locks: ', locked_total, nest_total
  print '(a)', trim(note)
end program synchronisation
