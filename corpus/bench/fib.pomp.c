/* fib.c instrumented for POMP2 as `pomp instrument` does by default: the
 * parallel region's closing barrier stays implicit
 * (pompImplicitBarrier=inferred), the single construct's barrier is
 * explicit, each task costs four events and each taskwait two. */
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
void POMP2_Single_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Single_begin(POMP2_Region_handle *h);
void POMP2_Single_end(POMP2_Region_handle *h);
void POMP2_Single_exit(POMP2_Region_handle *h);
void POMP2_Implicit_barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task);
void POMP2_Implicit_barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Task_create_begin(POMP2_Region_handle *h, POMP2_Task_handle *new_task,
                             POMP2_Task_handle *old_task, int if_clause, const char ctc[]);
void POMP2_Task_create_end(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Task_begin(POMP2_Region_handle *h, POMP2_Task_handle task);
void POMP2_Task_end(POMP2_Region_handle *h);
void POMP2_Taskwait_begin(POMP2_Region_handle *h, POMP2_Task_handle *old_task, const char ctc[]);
void POMP2_Taskwait_end(POMP2_Region_handle *h, POMP2_Task_handle old_task);

static POMP2_Region_handle pomp2_region_1 = NULL;
static POMP2_Region_handle pomp2_region_2 = NULL;
static POMP2_Region_handle pomp2_region_3 = NULL;
static POMP2_Region_handle pomp2_region_4 = NULL;
static POMP2_Region_handle pomp2_region_5 = NULL;
static const char pomp2_ctc_1[] = "67*regionType=task*sscl=fib.c:13:13*escl=fib.c:14:14*pompUnit=fib**";
static const char pomp2_ctc_2[] = "67*regionType=task*sscl=fib.c:15:15*escl=fib.c:16:16*pompUnit=fib**";
static const char pomp2_ctc_3[] = "71*regionType=taskwait*sscl=fib.c:17:17*escl=fib.c:17:17*pompUnit=fib**";
static const char pomp2_ctc_4[] = "102*regionType=parallel*sscl=fib.c:27:27*escl=fib.c:29:29*pompUnit=main*pompImplicitBarrier=inferred**";
static const char pomp2_ctc_5[] = "70*regionType=single*sscl=fib.c:28:28*escl=fib.c:29:29*pompUnit=main**";

void POMP2_Init_reg_fib_c(void) {
    POMP2_Assign_handle(&pomp2_region_1, pomp2_ctc_1);
    POMP2_Assign_handle(&pomp2_region_2, pomp2_ctc_2);
    POMP2_Assign_handle(&pomp2_region_3, pomp2_ctc_3);
    POMP2_Assign_handle(&pomp2_region_4, pomp2_ctc_4);
    POMP2_Assign_handle(&pomp2_region_5, pomp2_ctc_5);
}
void POMP2_Init_regions(void) { POMP2_Init_reg_fib_c(); }
size_t POMP2_Get_num_regions(void) { return 5; }
const char *POMP2_Get_opari2_version(void) { return "pomp-bench"; }

static long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

static long fib(int n, int cutoff) {
    if (n < cutoff) return fib_serial(n);
    long x, y;
    { POMP2_Task_handle pomp2_new_task; POMP2_Task_handle pomp2_old_task; int pomp2_if = 1;
      POMP2_Task_create_begin(&pomp2_region_1, &pomp2_new_task, &pomp2_old_task, pomp2_if, pomp2_ctc_1);
#pragma omp task firstprivate(pomp2_new_task, pomp2_if) if(pomp2_if) shared(x)
      { POMP2_Task_begin(&pomp2_region_1, pomp2_new_task);
        x = fib(n - 1, cutoff);
        POMP2_Task_end(&pomp2_region_1); }
      POMP2_Task_create_end(&pomp2_region_1, pomp2_old_task); }
    { POMP2_Task_handle pomp2_new_task; POMP2_Task_handle pomp2_old_task; int pomp2_if = 1;
      POMP2_Task_create_begin(&pomp2_region_2, &pomp2_new_task, &pomp2_old_task, pomp2_if, pomp2_ctc_2);
#pragma omp task firstprivate(pomp2_new_task, pomp2_if) if(pomp2_if) shared(y)
      { POMP2_Task_begin(&pomp2_region_2, pomp2_new_task);
        y = fib(n - 2, cutoff);
        POMP2_Task_end(&pomp2_region_2); }
      POMP2_Task_create_end(&pomp2_region_2, pomp2_old_task); }
    { POMP2_Task_handle pomp2_old_task;
      POMP2_Taskwait_begin(&pomp2_region_3, &pomp2_old_task, pomp2_ctc_3);
#pragma omp taskwait
      POMP2_Taskwait_end(&pomp2_region_3, pomp2_old_task); }
    return x + y;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 38;
    int cutoff = argc > 2 ? atoi(argv[2]) : 20;
    long result = 0;
    double start = omp_get_wtime();
    { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&pomp2_region_4, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_4);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads)
      { POMP2_Parallel_begin(&pomp2_region_4);
        { POMP2_Single_enter(&pomp2_region_5, pomp2_ctc_5);
#pragma omp single nowait
          { POMP2_Single_begin(&pomp2_region_5);
            result = fib(n, cutoff);
            POMP2_Single_end(&pomp2_region_5); }
          { POMP2_Task_handle pomp2_old_task;
            POMP2_Implicit_barrier_enter(&pomp2_region_5, &pomp2_old_task);
#pragma omp barrier
            POMP2_Implicit_barrier_exit(&pomp2_region_5, pomp2_old_task); }
          POMP2_Single_exit(&pomp2_region_5); }
        POMP2_Parallel_end(&pomp2_region_4); }
      POMP2_Parallel_join(&pomp2_region_4, pomp2_old_task); }
    double seconds = omp_get_wtime() - start;
    printf("seconds=%.6f fib=%ld\n", seconds, result);
    return 0;
}
