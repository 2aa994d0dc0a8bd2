
#line 1 "/work/main/runtime/tests/c/opari2/fwork.f90"
! A plain OpenMP Fortran program; fwork.opari.f90 and fwork.f90.opari.inc
! are what OPARI2 2.0.7 made of it (opari2 fwork.f90 fwork.opari.f90).
program fwork
  use omp_lib
  implicit none
      include 'fwork.f90.opari.inc'
#line 6 "/work/main/runtime/tests/c/opari2/fwork.f90"
  integer :: i, total, crit, tasks
  integer(kind=omp_lock_kind) :: lck
  total = 0
  crit = 0
  tasks = 0
  call POMP2_Init_lock(lck)
      pomp2_num_threads = pomp2_lib_get_max_threads()
      pomp2_if = .true.
      call POMP2_Parallel_fork(opari2_region_1,&
      pomp2_if, pomp2_num_threads, pomp2_old_task, &
      opari2_ctc_1 )
#line 12 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp parallel &
  !$omp firstprivate(pomp2_old_task) private(pomp2_new_task) &
  !$omp num_threads(pomp2_num_threads)
      call POMP2_Parallel_begin(opari2_region_1)
#line 13 "/work/main/runtime/tests/c/opari2/fwork.f90"
      call POMP2_Do_enter(opari2_region_2, &
     opari2_ctc_2 )
#line 13 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp do reduction(+:total)
  do i = 1, 100
    total = total + i
  end do
#line 17 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp end do nowait
      call POMP2_Implicit_barrier_enter(opari2_region_2,&
      pomp2_old_task)
!$omp barrier
      call POMP2_Implicit_barrier_exit(opari2_region_2, pomp2_old_task)
      call POMP2_Do_exit(opari2_region_2)
#line 18 "/work/main/runtime/tests/c/opari2/fwork.f90"
      call POMP2_Critical_enter(opari2_region_3, &
     opari2_ctc_3 )
#line 18 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp critical
      call POMP2_Critical_begin(opari2_region_3)
#line 19 "/work/main/runtime/tests/c/opari2/fwork.f90"
  crit = crit + 1
      call POMP2_Critical_end(opari2_region_3)
#line 20 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp end critical
      call POMP2_Critical_exit(opari2_region_3)
#line 21 "/work/main/runtime/tests/c/opari2/fwork.f90"
  call POMP2_Set_lock(lck)
  call POMP2_Unset_lock(lck)
      call POMP2_Single_enter(opari2_region_4, &
     opari2_ctc_4 )
#line 23 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp single
      call POMP2_Single_begin(opari2_region_4)
#line 24 "/work/main/runtime/tests/c/opari2/fwork.f90"
  do i = 1, 6
      pomp2_if = .true.
      if (pomp2_if) then
      call POMP2_Task_create_begin(opari2_region_5, pomp2_new_task,&
      pomp2_old_task, pomp2_if, opari2_ctc_5 )
      end if
#line 25 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp task if(pomp2_if) firstprivate(pomp2_new_task, pomp2_if)
      if (pomp2_if) then
      call POMP2_Task_begin(opari2_region_5, pomp2_new_task)
      end if
#line 26 "/work/main/runtime/tests/c/opari2/fwork.f90"
      call POMP2_Atomic_enter(opari2_region_6, &
     opari2_ctc_6 )
#line 26 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp atomic
    tasks = tasks + 1
      call POMP2_Atomic_exit(opari2_region_6)
#line 28 "/work/main/runtime/tests/c/opari2/fwork.f90"
      if (pomp2_if) then
      call POMP2_Task_end(opari2_region_5)
      end if
#line 28 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp end task
      if (pomp2_if) then
      call POMP2_Task_create_end(opari2_region_5, pomp2_old_task)
      end if
#line 29 "/work/main/runtime/tests/c/opari2/fwork.f90"
  end do
      call POMP2_Taskwait_begin(opari2_region_7,&
      pomp2_old_task, opari2_ctc_7 )
#line 30 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp taskwait
      call POMP2_Taskwait_end(opari2_region_7, pomp2_old_task)
#line 31 "/work/main/runtime/tests/c/opari2/fwork.f90"
      call POMP2_Single_end(opari2_region_4)
#line 31 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp end single nowait
      call POMP2_Implicit_barrier_enter(opari2_region_4,&
      pomp2_old_task)
!$omp barrier
      call POMP2_Implicit_barrier_exit(opari2_region_4, pomp2_old_task)
      call POMP2_Single_exit(opari2_region_4)
#line 32 "/work/main/runtime/tests/c/opari2/fwork.f90"
      call POMP2_Implicit_barrier_enter(opari2_region_1,&
      pomp2_old_task)
!$omp barrier
      call POMP2_Implicit_barrier_exit(opari2_region_1, pomp2_old_task)
      call POMP2_Parallel_end(opari2_region_1)
#line 32 "/work/main/runtime/tests/c/opari2/fwork.f90"
!$omp end parallel
      call POMP2_Parallel_join(opari2_region_1, pomp2_old_task)
#line 33 "/work/main/runtime/tests/c/opari2/fwork.f90"
  call POMP2_Destroy_lock(lck)
  print '(a,i0,a,i0,a,i0)', 'total=', total, ' critical=', crit, ' tasks=', tasks
end program fwork

      subroutine POMP2_Init_reg_v62812avoeouf_7()
         include 'fwork.f90.opari.inc'
         call POMP2_Assign_handle( opari2_region_1, &
         opari2_ctc_1 )
         call POMP2_Assign_handle( opari2_region_2, &
         opari2_ctc_2 )
         call POMP2_Assign_handle( opari2_region_3, &
         opari2_ctc_3 )
         call POMP2_Assign_handle( opari2_region_4, &
         opari2_ctc_4 )
         call POMP2_Assign_handle( opari2_region_5, &
         opari2_ctc_5 )
         call POMP2_Assign_handle( opari2_region_6, &
         opari2_ctc_6 )
         call POMP2_Assign_handle( opari2_region_7, &
         opari2_ctc_7 )
      end
