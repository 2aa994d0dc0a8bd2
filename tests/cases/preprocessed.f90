# 1 "prog.F90"
# 1 "<built-in>"
# 1 "<command-line>"
# 1 "prog.F90"
program prog
  use omp_lib
  integer :: i, s
  integer(kind=omp_lock_kind) :: lock
  s = 0
  call omp_init_lock(lock)
!$omp parallel do &

# 12 "prog.F90"
!$omp& reduction(+:s)
  do i = 1, 10
     s = s + &
# 20 "prog.F90"
          i
  end do
!$omp parallel
# 30 "prog.F90"
!$omp single
  s = s + 1
!$omp end single
!$omp end parallel
  call omp_destroy_lock(lock)
  print *, s
end program
