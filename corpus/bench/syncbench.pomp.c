/* syncbench.c instrumented for POMP2 as `pomp instrument` does by default:
 * a parallel region's closing barrier stays implicit
 * (pompImplicitBarrier=inferred): each thread calls Parallel_end where it
 * arrives, the master Parallel_join after the release, and pomp's runtime
 * infers the waiting. The combined parallel for keeps its loop's nowait and
 * needs no barrier of its own: the region's closing barrier ends the loop
 * too. The functions of parallel_in_calls are user regions, as
 * `--regions=functions` makes them. syncbench.explicit.pomp.c has OPARI2's
 * form. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *POMP2_Region_handle;
typedef int64_t POMP2_Task_handle;
void POMP2_Assign_handle(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Parallel_fork(POMP2_Region_handle *h, int if_clause, int num_threads,
                         POMP2_Task_handle *old_task, const char ctc[]);
void POMP2_Parallel_begin(POMP2_Region_handle *h);
void POMP2_Begin(POMP2_Region_handle *h, const char ctc[]);
void POMP2_End(POMP2_Region_handle *h);
void POMP2_Parallel_end(POMP2_Region_handle *h);
void POMP2_Parallel_join(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_For_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_For_exit(POMP2_Region_handle *h);
void POMP2_Implicit_barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task);
void POMP2_Implicit_barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task);

static POMP2_Region_handle pomp2_region_1 = NULL;
static POMP2_Region_handle pomp2_region_2 = NULL;
static POMP2_Region_handle pomp2_region_3 = NULL;
static POMP2_Region_handle pomp2_region_4 = NULL;
static POMP2_Region_handle pomp2_region_5 = NULL;
static const char pomp2_ctc_1[] = "117*regionType=parallelfor*sscl=syncbench.c:28:28*escl=syncbench.c:29:29*pompUnit=main*pompImplicitBarrier=inferred**";
static const char pomp2_ctc_2[] = "114*regionType=parallel*sscl=syncbench.c:33:33*escl=syncbench.c:34:34*pompUnit=main*pompImplicitBarrier=inferred**";

static const char pomp2_ctc_3[] = "89*regionType=region*sscl=syncbench.c:25:25*escl=syncbench.c:25:25*userRegionName=calls**";
static const char pomp2_ctc_4[] = "101*regionType=region*sscl=syncbench.c:18:18*escl=syncbench.c:23:23*userRegionName=regions_in_calls**";
static const char pomp2_ctc_5[] = "126*regionType=parallel*sscl=syncbench.c:20:20*escl=syncbench.c:21:21*pompUnit=regions_in_calls*pompImplicitBarrier=inferred**";

void POMP2_Init_reg_syncbench_c(void) {
    POMP2_Assign_handle(&pomp2_region_1, pomp2_ctc_1);
    POMP2_Assign_handle(&pomp2_region_2, pomp2_ctc_2);
    POMP2_Assign_handle(&pomp2_region_3, pomp2_ctc_3);
    POMP2_Assign_handle(&pomp2_region_4, pomp2_ctc_4);
    POMP2_Assign_handle(&pomp2_region_5, pomp2_ctc_5);
}
void POMP2_Init_regions(void) { POMP2_Init_reg_syncbench_c(); }
size_t POMP2_Get_num_regions(void) { return 5; }
const char *POMP2_Get_opari2_version(void) { return "pomp-bench"; }

static void delay(int length) {
    volatile int a = 0;
    for (int i = 0; i < length; i++) a += i;
}

/* The parallel regions of the parallel test, region `h`, forked from main
 * or from regions_in_calls. */
static void parallel_regions(POMP2_Region_handle *h, const char ctc[], long regions, int length) {
    for (long r = 0; r < regions; r++) {
        { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
          POMP2_Task_handle pomp2_old_task;
          POMP2_Parallel_fork(h, pomp2_if, pomp2_num_threads, &pomp2_old_task, ctc);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads)
          { POMP2_Parallel_begin(h);
            delay(length);
            POMP2_Parallel_end(h); }
          POMP2_Parallel_join(h, pomp2_old_task); }
    }
}

static void regions_in_calls(long regions, int length) {
    POMP2_Begin(&pomp2_region_4, pomp2_ctc_4);
    parallel_regions(&pomp2_region_5, pomp2_ctc_5, regions, length);
    POMP2_End(&pomp2_region_4);
}

static void calls(long regions, int length) {
    POMP2_Begin(&pomp2_region_3, pomp2_ctc_3);
    regions_in_calls(regions, length);
    POMP2_End(&pomp2_region_3);
}

int main(int argc, char **argv) {
    const char *test = argc > 1 ? argv[1] : "parallel";
    long regions = argc > 2 ? atol(argv[2]) : 200000;
    int length = argc > 3 ? atoi(argv[3]) : 50;
    int threads = omp_get_max_threads();
    int loop = strcmp(test, "parallel_for") == 0;
    int in_calls = strcmp(test, "parallel_in_calls") == 0;
    if (!loop && !in_calls && strcmp(test, "parallel") != 0) {
        fprintf(stderr, "syncbench: unknown test %s\n", test);
        return 2;
    }
    double start = omp_get_wtime();
    if (in_calls) {
        calls(regions, length);
    } else if (loop) {
        for (long r = 0; r < regions; r++) {
            { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
              POMP2_Task_handle pomp2_old_task;
              POMP2_Parallel_fork(&pomp2_region_1, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_1);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads)
              { POMP2_Parallel_begin(&pomp2_region_1);
                POMP2_For_enter(&pomp2_region_1, pomp2_ctc_1);
#pragma omp for nowait
                for (int i = 0; i < threads; i++) delay(length);
                POMP2_For_exit(&pomp2_region_1);
                POMP2_Parallel_end(&pomp2_region_1); }
              POMP2_Parallel_join(&pomp2_region_1, pomp2_old_task); }
        }
    } else {
        parallel_regions(&pomp2_region_2, pomp2_ctc_2, regions, length);
    }
    double seconds = omp_get_wtime() - start;
    printf("seconds=%.6f us_per_region=%.4f\n", seconds, seconds * 1e6 / regions);
    return 0;
}
