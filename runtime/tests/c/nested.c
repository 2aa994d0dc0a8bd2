/* Nested parallelism: the reference `parallel for` transformation as the
 * outer region, a plain parallel region inside each iteration. */
#include "pomp2_lib.h"
#include <stdio.h>

#define ITERATIONS 4

static POMP2_Region_handle pomp2_region_outer = NULL;
static POMP2_Region_handle pomp2_region_inner = NULL;
static const char pomp2_ctc_outer[] = "85*regionType=parallelfor*sscl=nested.c:20:20*escl=nested.c:40:40*pompId=nested.c#1**";
static const char pomp2_ctc_inner[] = "82*regionType=parallel*sscl=nested.c:25:25*escl=nested.c:35:35*pompId=nested.c#2**";

void POMP2_Init_reg_nested_c_1(void) {
    POMP2_Assign_handle(&pomp2_region_outer, pomp2_ctc_outer);
    POMP2_Assign_handle(&pomp2_region_inner, pomp2_ctc_inner);
}
void POMP2_Init_regions(void) { POMP2_Init_reg_nested_c_1(); }
size_t POMP2_Get_num_regions(void) { return 2; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

int main(void) {
    int i, s = 0;
    omp_set_max_active_levels(2);
    { int pomp2_num_threads = 2; int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&pomp2_region_outer, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_outer);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads) shared(s)
      { POMP2_Parallel_begin(&pomp2_region_outer);
        POMP2_For_enter(&pomp2_region_outer, pomp2_ctc_outer);
#pragma omp for reduction(+:s) nowait
        for (i = 0; i < ITERATIONS; i++) {
          { int pomp2_num_threads = 2; int pomp2_if = 1;
            POMP2_Task_handle pomp2_old_task;
            POMP2_Parallel_fork(&pomp2_region_inner, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_inner);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads) reduction(+:s)
            { POMP2_Parallel_begin(&pomp2_region_inner);
              s += omp_get_level();
              { POMP2_Task_handle pomp2_old_task;
                POMP2_Implicit_barrier_enter(&pomp2_region_inner, &pomp2_old_task);
#pragma omp barrier
                POMP2_Implicit_barrier_exit(&pomp2_region_inner, pomp2_old_task); }
              POMP2_Parallel_end(&pomp2_region_inner); }
            POMP2_Parallel_join(&pomp2_region_inner, pomp2_old_task); }
        }
        { POMP2_Task_handle pomp2_old_task;
          POMP2_Implicit_barrier_enter(&pomp2_region_outer, &pomp2_old_task);
#pragma omp barrier
          POMP2_Implicit_barrier_exit(&pomp2_region_outer, pomp2_old_task); }
        POMP2_For_exit(&pomp2_region_outer);
        POMP2_Parallel_end(&pomp2_region_outer); }
      POMP2_Parallel_join(&pomp2_region_outer, pomp2_old_task); }
    printf("level_sum=%d\n", s);
    return 0;
}
