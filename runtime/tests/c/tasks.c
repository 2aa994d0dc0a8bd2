/* Nested task creation: a single thread creates OUTER tasks, each of which
 * creates INNER tasks that sleep briefly and then waits for them. */
#include "pomp2_lib.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define OUTER 4
#define INNER 5

static POMP2_Region_handle pomp2_region_par = NULL;
static POMP2_Region_handle pomp2_region_single = NULL;
static POMP2_Region_handle pomp2_region_outer = NULL;
static POMP2_Region_handle pomp2_region_inner = NULL;
static POMP2_Region_handle pomp2_region_wait = NULL;
static const char pomp2_ctc_par[] = "62*regionType=parallel*sscl=tasks.c:30:30*escl=tasks.c:80:80**";
static const char pomp2_ctc_single[] = "60*regionType=single*sscl=tasks.c:33:33*escl=tasks.c:70:70**";
static const char pomp2_ctc_outer[] = "58*regionType=task*sscl=tasks.c:36:36*escl=tasks.c:60:60**";
static const char pomp2_ctc_inner[] = "58*regionType=task*sscl=tasks.c:40:40*escl=tasks.c:45:45**";
static const char pomp2_ctc_wait[] = "62*regionType=taskwait*sscl=tasks.c:50:50*escl=tasks.c:50:50**";

void POMP2_Init_reg_tasks_c_1(void) {
    POMP2_Assign_handle(&pomp2_region_par, pomp2_ctc_par);
    POMP2_Assign_handle(&pomp2_region_single, pomp2_ctc_single);
    POMP2_Assign_handle(&pomp2_region_outer, pomp2_ctc_outer);
    POMP2_Assign_handle(&pomp2_region_inner, pomp2_ctc_inner);
    POMP2_Assign_handle(&pomp2_region_wait, pomp2_ctc_wait);
}
void POMP2_Init_regions(void) { POMP2_Init_reg_tasks_c_1(); }
size_t POMP2_Get_num_regions(void) { return 5; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

static POMP2_Task_handle created_ids[OUTER + OUTER * INNER];
static int created_count = 0;

static void remember(POMP2_Task_handle id) {
    int slot;
#pragma omp atomic capture
    slot = created_count++;
    created_ids[slot] = id;
}

int main(void) {
    int done = 0;
    { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&pomp2_region_par, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_par);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads) shared(done)
      { POMP2_Parallel_begin(&pomp2_region_par);
        { POMP2_Single_enter(&pomp2_region_single, pomp2_ctc_single);
#pragma omp single nowait
          { POMP2_Single_begin(&pomp2_region_single);
            for (int o = 0; o < OUTER; o++) {
              { POMP2_Task_handle pomp2_new_task; POMP2_Task_handle pomp2_old_task; int pomp2_if = 1;
                POMP2_Task_create_begin(&pomp2_region_outer, &pomp2_new_task, &pomp2_old_task, pomp2_if, pomp2_ctc_outer);
                remember(pomp2_new_task);
#pragma omp task firstprivate(pomp2_new_task, pomp2_if) if(pomp2_if) shared(done)
                { POMP2_Task_begin(&pomp2_region_outer, pomp2_new_task);
                  for (int i = 0; i < INNER; i++) {
                    { POMP2_Task_handle pomp2_new_task; POMP2_Task_handle pomp2_old_task; int pomp2_if = 1;
                      POMP2_Task_create_begin(&pomp2_region_inner, &pomp2_new_task, &pomp2_old_task, pomp2_if, pomp2_ctc_inner);
                      remember(pomp2_new_task);
#pragma omp task firstprivate(pomp2_new_task, pomp2_if) if(pomp2_if) shared(done)
                      { POMP2_Task_begin(&pomp2_region_inner, pomp2_new_task);
                        usleep(2000);
#pragma omp atomic
                        done++;
                        POMP2_Task_end(&pomp2_region_inner); }
                      POMP2_Task_create_end(&pomp2_region_inner, pomp2_old_task); }
                  }
                  { POMP2_Task_handle pomp2_old_task;
                    POMP2_Taskwait_begin(&pomp2_region_wait, &pomp2_old_task, pomp2_ctc_wait);
#pragma omp taskwait
                    POMP2_Taskwait_end(&pomp2_region_wait, pomp2_old_task); }
                  POMP2_Task_end(&pomp2_region_outer); }
                POMP2_Task_create_end(&pomp2_region_outer, pomp2_old_task); }
            }
            POMP2_Single_end(&pomp2_region_single); }
          { POMP2_Task_handle pomp2_old_task;
            POMP2_Implicit_barrier_enter(&pomp2_region_single, &pomp2_old_task);
#pragma omp barrier
            POMP2_Implicit_barrier_exit(&pomp2_region_single, pomp2_old_task); }
          POMP2_Single_exit(&pomp2_region_single); }
        { POMP2_Task_handle pomp2_old_task;
          POMP2_Implicit_barrier_enter(&pomp2_region_par, &pomp2_old_task);
#pragma omp barrier
          POMP2_Implicit_barrier_exit(&pomp2_region_par, pomp2_old_task); }
        POMP2_Parallel_end(&pomp2_region_par); }
      POMP2_Parallel_join(&pomp2_region_par, pomp2_old_task); }

    int distinct = 1;
    for (int a = 0; a < created_count; a++)
        for (int b = a + 1; b < created_count; b++)
            if (created_ids[a] == created_ids[b] || created_ids[a] == 0) distinct = 0;
    printf("done=%d created=%d distinct_ids=%d\n", done, created_count, distinct);
    return 0;
}
