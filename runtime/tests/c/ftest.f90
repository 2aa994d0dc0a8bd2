! Fortran program instrumented by hand the way pomp instruments Fortran:
! INTEGER(KIND=8) handles, CTC character constants, lowercase POMP2 calls.
module ftest_regions
  implicit none
  integer(kind=8), save :: pomp2_region_par = 0, pomp2_region_do = 0
  integer(kind=8), save :: pomp2_region_crit = 0, pomp2_region_task = 0
  character(len=*), parameter :: pomp2_ctc_par = &
    "85*regionType=parallel*sscl=ftest.f90:30:30*escl=ftest.f90:70:70*pompId=ftest.f90#1**"
  character(len=*), parameter :: pomp2_ctc_do = &
    "94*regionType=do*sscl=ftest.f90:33:33*escl=ftest.f90:36:36*hasReduction=1*pompId=ftest.f90#2**"
  character(len=*), parameter :: pomp2_ctc_crit = &
    "85*regionType=critical*sscl=ftest.f90:40:40*escl=ftest.f90:43:43*pompId=ftest.f90#3**"
  character(len=*), parameter :: pomp2_ctc_task = &
    "81*regionType=task*sscl=ftest.f90:50:50*escl=ftest.f90:55:55*pompId=ftest.f90#4**"
end module ftest_regions

subroutine pomp2_init_reg_ftest()
  use ftest_regions
  call pomp2_assign_handle(pomp2_region_par, pomp2_ctc_par)
  call pomp2_assign_handle(pomp2_region_do, pomp2_ctc_do)
  call pomp2_assign_handle(pomp2_region_crit, pomp2_ctc_crit)
  call pomp2_assign_handle(pomp2_region_task, pomp2_ctc_task)
end subroutine pomp2_init_reg_ftest

program ftest
  use omp_lib
  use ftest_regions
  implicit none
  integer, external :: pomp2_lib_get_max_threads
  integer(kind=8) :: pomp2_old_task, pomp2_new_task
  logical :: pomp2_if
  integer(kind=4) :: pomp2_num_threads
  integer :: i, total, crit, tasks, locked
  integer(kind=omp_lock_kind) :: lck

  total = 0
  crit = 0
  tasks = 0
  locked = 0
  call pomp2_init_lock(lck)
  pomp2_num_threads = pomp2_lib_get_max_threads()
  pomp2_if = .true.
  call pomp2_parallel_fork(pomp2_region_par, pomp2_if, pomp2_num_threads, pomp2_old_task, pomp2_ctc_par)
!$omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads) &
!$omp private(i, pomp2_new_task) shared(total, crit, tasks, locked, lck)
  call pomp2_parallel_begin(pomp2_region_par)
  call pomp2_do_enter(pomp2_region_do, pomp2_ctc_do)
!$omp do reduction(+:total)
  do i = 1, 100
    total = total + i
  end do
!$omp end do nowait
  call pomp2_implicit_barrier_enter(pomp2_region_do, pomp2_old_task)
!$omp barrier
  call pomp2_implicit_barrier_exit(pomp2_region_do, pomp2_old_task)
  call pomp2_do_exit(pomp2_region_do)

  call pomp2_critical_enter(pomp2_region_crit, pomp2_ctc_crit)
!$omp critical
  call pomp2_critical_begin(pomp2_region_crit)
  crit = crit + 1
  call pomp2_critical_end(pomp2_region_crit)
!$omp end critical
  call pomp2_critical_exit(pomp2_region_crit)

  call pomp2_set_lock(lck)
  locked = locked + 1
  call pomp2_unset_lock(lck)

!$omp single
  do i = 1, 5
    call pomp2_task_create_begin(pomp2_region_task, pomp2_new_task, pomp2_old_task, pomp2_if, pomp2_ctc_task)
!$omp task firstprivate(pomp2_new_task, pomp2_if) if(pomp2_if) shared(tasks)
    call pomp2_task_begin(pomp2_region_task, pomp2_new_task)
!$omp atomic
    tasks = tasks + 1
    call pomp2_task_end(pomp2_region_task)
!$omp end task
    call pomp2_task_create_end(pomp2_region_task, pomp2_old_task)
  end do
!$omp end single

  call pomp2_implicit_barrier_enter(pomp2_region_par, pomp2_old_task)
!$omp barrier
  call pomp2_implicit_barrier_exit(pomp2_region_par, pomp2_old_task)
  call pomp2_parallel_end(pomp2_region_par)
!$omp end parallel
  call pomp2_parallel_join(pomp2_region_par, pomp2_old_task)
  call pomp2_destroy_lock(lck)
  print '(a,i0,a,i0,a,i0,a,i0,a,i0)', 'max_threads=', pomp2_num_threads, ' total=', total, &
    ' critical=', crit, ' tasks=', tasks, ' locked=', locked
end program ftest
