! A plain OpenMP Fortran program; fwork.opari.f90 and fwork.f90.opari.inc
! are what OPARI2 2.0.7 made of it (opari2 fwork.f90 fwork.opari.f90).
program fwork
  use omp_lib
  implicit none
  integer :: i, total, crit, tasks
  integer(kind=omp_lock_kind) :: lck
  total = 0
  crit = 0
  tasks = 0
  call omp_init_lock(lck)
!$omp parallel
!$omp do reduction(+:total)
  do i = 1, 100
    total = total + i
  end do
!$omp end do
!$omp critical
  crit = crit + 1
!$omp end critical
  call omp_set_lock(lck)
  call omp_unset_lock(lck)
!$omp single
  do i = 1, 6
!$omp task
!$omp atomic
    tasks = tasks + 1
!$omp end task
  end do
!$omp taskwait
!$omp end single
!$omp end parallel
  call omp_destroy_lock(lck)
  print '(a,i0,a,i0,a,i0)', 'total=', total, ' critical=', crit, ' tasks=', tasks
end program fwork
