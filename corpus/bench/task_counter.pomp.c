/* task_counter.c instrumented for POMP2 as `pomp instrument` does by
 * default (a parallel region whose closing barrier stays implicit, tied
 * tasks, an atomic), so each task costs six events: create begin/end,
 * begin/end and the atomic's enter/exit. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *POMP2_Region_handle;
typedef int64_t POMP2_Task_handle;
void POMP2_Assign_handle(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Parallel_fork(POMP2_Region_handle *h, int if_clause, int num_threads,
                         POMP2_Task_handle *old_task, const char ctc[]);
void POMP2_Parallel_begin(POMP2_Region_handle *h);
void POMP2_Parallel_end(POMP2_Region_handle *h);
void POMP2_Parallel_join(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Task_create_begin(POMP2_Region_handle *h, POMP2_Task_handle *new_task,
                             POMP2_Task_handle *old_task, int if_clause, const char ctc[]);
void POMP2_Task_create_end(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Task_begin(POMP2_Region_handle *h, POMP2_Task_handle task);
void POMP2_Task_end(POMP2_Region_handle *h);
void POMP2_Atomic_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Atomic_exit(POMP2_Region_handle *h);

static POMP2_Region_handle pomp2_region_1 = NULL;
static POMP2_Region_handle pomp2_region_2 = NULL;
static POMP2_Region_handle pomp2_region_3 = NULL;
static const char pomp2_ctc_1[] = "120*regionType=parallel*sscl=task_counter.c:12:12*escl=task_counter.c:21:21*pompUnit=main*pompImplicitBarrier=inferred**";
static const char pomp2_ctc_2[] = "86*regionType=task*sscl=task_counter.c:15:15*escl=task_counter.c:19:19*pompUnit=main**";
static const char pomp2_ctc_3[] = "88*regionType=atomic*sscl=task_counter.c:17:17*escl=task_counter.c:18:18*pompUnit=main**";

void POMP2_Init_reg_task_counter_c(void) {
    POMP2_Assign_handle(&pomp2_region_1, pomp2_ctc_1);
    POMP2_Assign_handle(&pomp2_region_2, pomp2_ctc_2);
    POMP2_Assign_handle(&pomp2_region_3, pomp2_ctc_3);
}
void POMP2_Init_regions(void) { POMP2_Init_reg_task_counter_c(); }
size_t POMP2_Get_num_regions(void) { return 3; }
const char *POMP2_Get_opari2_version(void) { return "pomp-bench"; }

int main(int argc, char **argv) {
    long tasks_per_thread = argc > 1 ? atol(argv[1]) : 100000;
    long counter = 0;
    double start = omp_get_wtime();
    { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&pomp2_region_1, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_1);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads) shared(counter)
      { POMP2_Parallel_begin(&pomp2_region_1);
        for (long i = 0; i < tasks_per_thread; i++) {
          { POMP2_Task_handle pomp2_new_task; POMP2_Task_handle pomp2_old_task; int pomp2_if = 1;
            POMP2_Task_create_begin(&pomp2_region_2, &pomp2_new_task, &pomp2_old_task, pomp2_if, pomp2_ctc_2);
#pragma omp task firstprivate(pomp2_new_task, pomp2_if) if(pomp2_if) shared(counter)
            { POMP2_Task_begin(&pomp2_region_2, pomp2_new_task);
              { POMP2_Atomic_enter(&pomp2_region_3, pomp2_ctc_3);
#pragma omp atomic
                counter++;
                POMP2_Atomic_exit(&pomp2_region_3); }
              POMP2_Task_end(&pomp2_region_2); }
            POMP2_Task_create_end(&pomp2_region_2, pomp2_old_task); }
        }
        POMP2_Parallel_end(&pomp2_region_1); }
      POMP2_Parallel_join(&pomp2_region_1, pomp2_old_task); }
    double seconds = omp_get_wtime() - start;
    long expected = tasks_per_thread * omp_get_max_threads();
    printf("seconds=%.6f counter=%ld expected=%ld\n", seconds, counter, expected);
    return counter == expected ? 0 : 1;
}
