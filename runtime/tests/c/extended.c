/* pomp's extended events: masked, scope, loop, taskgroup, taskloop,
 * taskyield, teams, distribute, target (host side), and a cancelled
 * parallel region whose end events are skipped. */
#include "pomp2_lib.h"
#include <stdio.h>

void POMP2_Masked_begin(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Masked_end(POMP2_Region_handle *h);
void POMP2_Scope_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Scope_exit(POMP2_Region_handle *h);
void POMP2_Loop_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Loop_exit(POMP2_Region_handle *h);
void POMP2_Taskloop_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Taskloop_exit(POMP2_Region_handle *h);
void POMP2_Taskyield_begin(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Taskyield_end(POMP2_Region_handle *h);
void POMP2_Teams_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Teams_exit(POMP2_Region_handle *h);
void POMP2_Distribute_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Distribute_exit(POMP2_Region_handle *h);
void POMP2_Target_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Target_exit(POMP2_Region_handle *h);

#define CANCEL_REPS 2

static POMP2_Region_handle h_par, h_masked, h_scope, h_loop, h_single, h_taskgroup, h_taskloop,
    h_taskyield, h_teams, h_distribute, h_target, h_cpar, h_cancel, h_cpoint;
static const char c_par[] = "64*regionType=parallel*sscl=extended.c:1:1*escl=extended.c:1:1**";
static const char c_masked[] = "62*regionType=masked*sscl=extended.c:2:2*escl=extended.c:2:2**";
static const char c_scope[] = "61*regionType=scope*sscl=extended.c:3:3*escl=extended.c:3:3**";
static const char c_loop[] = "60*regionType=loop*sscl=extended.c:4:4*escl=extended.c:4:4**";
static const char c_single[] = "62*regionType=single*sscl=extended.c:5:5*escl=extended.c:5:5**";
static const char c_taskgroup[] = "65*regionType=taskgroup*sscl=extended.c:6:6*escl=extended.c:6:6**";
static const char c_taskloop[] = "64*regionType=taskloop*sscl=extended.c:7:7*escl=extended.c:7:7**";
static const char c_taskyield[] = "65*regionType=taskyield*sscl=extended.c:8:8*escl=extended.c:8:8**";
static const char c_teams[] = "61*regionType=teams*sscl=extended.c:9:9*escl=extended.c:9:9**";
static const char c_distribute[] = "70*regionType=distribute*sscl=extended.c:10:10*escl=extended.c:10:10**";
static const char c_target[] = "66*regionType=target*sscl=extended.c:11:11*escl=extended.c:11:11**";
static const char c_cpar[] = "68*regionType=parallel*sscl=extended.c:12:12*escl=extended.c:12:12**";
static const char c_cancel[] = "66*regionType=cancel*sscl=extended.c:13:13*escl=extended.c:13:13**";
static const char c_cpoint[] = "78*regionType=cancellation point*sscl=extended.c:14:14*escl=extended.c:14:14**";

void POMP2_Init_reg_extended_c_1(void) {
    POMP2_Assign_handle(&h_par, c_par);
    POMP2_Assign_handle(&h_masked, c_masked);
    POMP2_Assign_handle(&h_scope, c_scope);
    POMP2_Assign_handle(&h_loop, c_loop);
    POMP2_Assign_handle(&h_single, c_single);
    POMP2_Assign_handle(&h_taskgroup, c_taskgroup);
    POMP2_Assign_handle(&h_taskloop, c_taskloop);
    POMP2_Assign_handle(&h_taskyield, c_taskyield);
    POMP2_Assign_handle(&h_teams, c_teams);
    POMP2_Assign_handle(&h_distribute, c_distribute);
    POMP2_Assign_handle(&h_target, c_target);
    POMP2_Assign_handle(&h_cpar, c_cpar);
    POMP2_Assign_handle(&h_cancel, c_cancel);
    POMP2_Assign_handle(&h_cpoint, c_cpoint);
}
void POMP2_Init_regions(void) { POMP2_Init_reg_extended_c_1(); }
size_t POMP2_Get_num_regions(void) { return 14; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

int main(void) {
    int masked = 0, scoped = 0, loop_sum = 0, grouped = 0, looped = 0, distributed = 0, target_x = 0;
    { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&h_par, pomp2_if, pomp2_num_threads, &pomp2_old_task, c_par);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads) shared(masked, scoped, loop_sum, grouped, looped)
      { POMP2_Parallel_begin(&h_par);
#pragma omp masked
        { POMP2_Masked_begin(&h_masked, c_masked); masked++; POMP2_Masked_end(&h_masked); }
        POMP2_Scope_enter(&h_scope, c_scope);
#pragma omp scope
        {
#pragma omp atomic
          scoped++;
        }
        POMP2_Scope_exit(&h_scope);
        POMP2_Loop_enter(&h_loop, c_loop);
#pragma omp loop reduction(+:loop_sum)
        for (int i = 0; i < 100; i++) loop_sum += i;
        POMP2_Loop_exit(&h_loop);
        POMP2_Single_enter(&h_single, c_single);
#pragma omp single
        { POMP2_Single_begin(&h_single);
          POMP2_Taskgroup_enter(&h_taskgroup, c_taskgroup);
#pragma omp taskgroup
          {
            for (int t = 0; t < 4; t++) {
#pragma omp task
              {
#pragma omp atomic
                grouped++;
              }
            }
          }
          POMP2_Taskgroup_exit(&h_taskgroup);
          POMP2_Taskloop_enter(&h_taskloop, c_taskloop);
#pragma omp taskloop
          for (int i = 0; i < 10; i++) {
#pragma omp atomic
            looped++;
          }
          POMP2_Taskloop_exit(&h_taskloop);
          POMP2_Taskyield_begin(&h_taskyield, c_taskyield);
#pragma omp taskyield
          POMP2_Taskyield_end(&h_taskyield);
          POMP2_Single_end(&h_single); }
        POMP2_Single_exit(&h_single);
        { POMP2_Task_handle pomp2_old_task;
          POMP2_Implicit_barrier_enter(&h_par, &pomp2_old_task);
#pragma omp barrier
          POMP2_Implicit_barrier_exit(&h_par, pomp2_old_task); }
        POMP2_Parallel_end(&h_par); }
      POMP2_Parallel_join(&h_par, pomp2_old_task); }

    POMP2_Teams_enter(&h_teams, c_teams);
#pragma omp teams num_teams(2)
    { POMP2_Distribute_enter(&h_distribute, c_distribute);
#pragma omp distribute
      for (int i = 0; i < 4; i++) {
#pragma omp atomic
        distributed++;
      }
      POMP2_Distribute_exit(&h_distribute); }
    POMP2_Teams_exit(&h_teams);

    POMP2_Target_enter(&h_target, c_target);
#pragma omp target map(tofrom: target_x)
    target_x++;
    POMP2_Target_exit(&h_target);

    for (int rep = 0; rep < CANCEL_REPS; rep++) {
      { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
        POMP2_Task_handle pomp2_old_task;
        POMP2_Parallel_fork(&h_cpar, pomp2_if, pomp2_num_threads, &pomp2_old_task, c_cpar);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads)
        { POMP2_Parallel_begin(&h_cpar);
          if (omp_get_thread_num() == 0) {
            POMP2_Cancel(&h_cancel, c_cancel);
#pragma omp cancel parallel
          }
          POMP2_Cancellation_point(&h_cpoint, c_cpoint);
#pragma omp cancellation point parallel
          { POMP2_Task_handle pomp2_old_task;
            POMP2_Implicit_barrier_enter(&h_cpar, &pomp2_old_task);
#pragma omp barrier
            POMP2_Implicit_barrier_exit(&h_cpar, pomp2_old_task); }
          POMP2_Parallel_end(&h_cpar); }
        POMP2_Parallel_join(&h_cpar, pomp2_old_task); }
    }
    printf("cancellation=%d masked=%d scoped=%d loop_sum=%d grouped=%d looped=%d distributed=%d target=%d\n",
           omp_get_cancellation(), masked, scoped, loop_sum, grouped, looped, distributed, target_x);
    return 0;
}
