#include "workload.c.opari.inc"
#line 1 "/work/main/runtime/tests/c/opari2/workload.c"
/* A plain OpenMP program; workload.opari.c and workload.c.opari.inc are
 * what OPARI2 2.0.7 made of it (opari2 workload.c workload.opari.c). */
#include <stdio.h>
#include <unistd.h>

int main(void) {
    long sum = 0;
    int critical_hits = 0, tasks_done = 0, lock_hits = 0, sections_done = 0;
    omp_lock_t lock;
    POMP2_Init_lock(&lock);
{
  int pomp2_num_threads = omp_get_max_threads();
  int pomp2_if = 1;
  POMP2_Task_handle pomp2_old_task;
  POMP2_Parallel_fork(&opari2_region_1, pomp2_if, pomp2_num_threads, &pomp2_old_task, opari2_ctc_1 );
#line 12 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp parallel reduction(+:sum) POMP2_DLIST_00001 firstprivate(pomp2_old_task) num_threads(pomp2_num_threads)
{   POMP2_Parallel_begin( &opari2_region_1 );
#line 13 "/work/main/runtime/tests/c/opari2/workload.c"
    {
{   POMP2_For_enter( &opari2_region_2, opari2_ctc_2  );
#line 14 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp for nowait
        for (int i = 0; i < 1000; i++) sum += i;
{ POMP2_Task_handle pomp2_old_task;
  POMP2_Implicit_barrier_enter( &opari2_region_2, &pomp2_old_task );
#pragma omp barrier
  POMP2_Implicit_barrier_exit( &opari2_region_2, pomp2_old_task ); }
  POMP2_For_exit( &opari2_region_2 );
 }
#line 16 "/work/main/runtime/tests/c/opari2/workload.c"
{   POMP2_Critical_enter( &opari2_region_3, opari2_ctc_3  );
#line 16 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp critical
{   POMP2_Critical_begin( &opari2_region_3 );
#line 17 "/work/main/runtime/tests/c/opari2/workload.c"
        critical_hits++;
  POMP2_Critical_end( &opari2_region_3 ); }
  POMP2_Critical_exit( &opari2_region_3 );
 }
#line 18 "/work/main/runtime/tests/c/opari2/workload.c"
{   POMP2_Sections_enter( &opari2_region_4, opari2_ctc_4  );
#line 18 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp sections nowait
        {
#line 20 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp section
{   POMP2_Section_begin( &opari2_region_4, opari2_ctc_4  );
#line 21 "/work/main/runtime/tests/c/opari2/workload.c"
            {
{   POMP2_Atomic_enter( &opari2_region_5, opari2_ctc_5  );
#line 22 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp atomic
                sections_done++;
  POMP2_Atomic_exit( &opari2_region_5 );
 }
#line 24 "/work/main/runtime/tests/c/opari2/workload.c"
            }
  POMP2_Section_end( &opari2_region_4 ); }
#line 25 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp section
{   POMP2_Section_begin( &opari2_region_4, opari2_ctc_4  );
#line 26 "/work/main/runtime/tests/c/opari2/workload.c"
            {
{   POMP2_Atomic_enter( &opari2_region_6, opari2_ctc_6  );
#line 27 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp atomic
                sections_done++;
  POMP2_Atomic_exit( &opari2_region_6 );
 }
#line 29 "/work/main/runtime/tests/c/opari2/workload.c"
            }
  POMP2_Section_end( &opari2_region_4 ); }
#line 30 "/work/main/runtime/tests/c/opari2/workload.c"
        }
{ POMP2_Task_handle pomp2_old_task;
  POMP2_Implicit_barrier_enter( &opari2_region_4, &pomp2_old_task );
#pragma omp barrier
  POMP2_Implicit_barrier_exit( &opari2_region_4, pomp2_old_task ); }
  POMP2_Sections_exit( &opari2_region_4 );
 }
#line 31 "/work/main/runtime/tests/c/opari2/workload.c"
{   POMP2_Single_enter( &opari2_region_7, opari2_ctc_7  );
#line 31 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp single nowait
{   POMP2_Single_begin( &opari2_region_7 );
#line 32 "/work/main/runtime/tests/c/opari2/workload.c"
        {
            for (int t = 0; t < 8; t++) {
{
  int pomp2_if = 1;
{ POMP2_Task_handle pomp2_old_task;
  POMP2_Task_handle pomp2_new_task;
if (pomp2_if)  POMP2_Task_create_begin( &opari2_region_8, &pomp2_new_task, &pomp2_old_task, pomp2_if, opari2_ctc_8  );
#line 34 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp task POMP2_DLIST_00008 if(pomp2_if) firstprivate(pomp2_new_task, pomp2_if)
{ if (pomp2_if)  POMP2_Task_begin( &opari2_region_8, pomp2_new_task );
#line 35 "/work/main/runtime/tests/c/opari2/workload.c"
                {
                    usleep(1000);
{   POMP2_Atomic_enter( &opari2_region_9, opari2_ctc_9  );
#line 37 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp atomic
                    tasks_done++;
  POMP2_Atomic_exit( &opari2_region_9 );
 }
#line 39 "/work/main/runtime/tests/c/opari2/workload.c"
                }
if (pomp2_if)  POMP2_Task_end( &opari2_region_8 ); }
if (pomp2_if)  POMP2_Task_create_end( &opari2_region_8, pomp2_old_task ); }
}
#line 40 "/work/main/runtime/tests/c/opari2/workload.c"
            }
{ POMP2_Task_handle pomp2_old_task;
  POMP2_Taskwait_begin( &opari2_region_10, &pomp2_old_task, opari2_ctc_10  );
#line 41 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp taskwait
  POMP2_Taskwait_end( &opari2_region_10, pomp2_old_task ); }
#line 42 "/work/main/runtime/tests/c/opari2/workload.c"
        }
  POMP2_Single_end( &opari2_region_7 ); }
{ POMP2_Task_handle pomp2_old_task;
  POMP2_Implicit_barrier_enter( &opari2_region_7, &pomp2_old_task );
#pragma omp barrier
  POMP2_Implicit_barrier_exit( &opari2_region_7, pomp2_old_task ); }
  POMP2_Single_exit( &opari2_region_7 );
 }
#line 43 "/work/main/runtime/tests/c/opari2/workload.c"
        POMP2_Set_lock(&lock);
        lock_hits++;
        POMP2_Unset_lock(&lock);
{ POMP2_Task_handle pomp2_old_task;
  POMP2_Barrier_enter( &opari2_region_11, &pomp2_old_task, opari2_ctc_11  );
#line 46 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp barrier
  POMP2_Barrier_exit( &opari2_region_11, pomp2_old_task ); }
#line 47 "/work/main/runtime/tests/c/opari2/workload.c"
#line 47 "/work/main/runtime/tests/c/opari2/workload.c"
#pragma omp master
{   POMP2_Master_begin( &opari2_region_12, opari2_ctc_12  );
#line 48 "/work/main/runtime/tests/c/opari2/workload.c"
        printf("team=%d\n", omp_get_num_threads());
  POMP2_Master_end( &opari2_region_12 ); }
#line 49 "/work/main/runtime/tests/c/opari2/workload.c"
    }
{ POMP2_Task_handle pomp2_old_task;
  POMP2_Implicit_barrier_enter( &opari2_region_1, &pomp2_old_task );
#pragma omp barrier
  POMP2_Implicit_barrier_exit( &opari2_region_1, pomp2_old_task ); }
  POMP2_Parallel_end( &opari2_region_1 ); }
  POMP2_Parallel_join( &opari2_region_1, pomp2_old_task ); }
#line 50 "/work/main/runtime/tests/c/opari2/workload.c"
    POMP2_Destroy_lock(&lock);
    printf("sum=%ld critical=%d sections=%d tasks=%d locks=%d\n", sum, critical_hits,
           sections_done, tasks_done, lock_hits);
    return 0;
}
