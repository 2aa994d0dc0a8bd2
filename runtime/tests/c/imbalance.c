/* Imbalanced parallel regions, each in two forms: OPARI2's, whose closing
 * barrier is explicit and measured, and pomp's, whose closing barrier stays
 * implicit (pompImplicitBarrier=inferred) and whose waiting the runtime
 * infers. A combined parallel for spreads iterations of growing cost
 * statically; a parallel region gives each thread work in proportion to its
 * number. The forms alternate, so both see the same machine.
 *
 * Work is sleeping until a deadline counted from the region's start, so
 * when each thread arrives at the barrier does not depend on how busy the
 * machine is, only on how soon a sleeping thread wakes. In the inferred
 * form each thread also notes when it arrives, and the program prints each
 * thread's waiting as those notes give it: the last arrival releases the
 * team. */
#include "pomp2_lib.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static POMP2_Region_handle pomp2_region_loop_x = NULL;
static POMP2_Region_handle pomp2_region_loop_i = NULL;
static POMP2_Region_handle pomp2_region_threads_x = NULL;
static POMP2_Region_handle pomp2_region_threads_i = NULL;
static const char pomp2_ctc_loop_x[] = "117*regionType=parallelfor*sscl=imbalance.c:40:40*escl=imbalance.c:42:42*scheduleType=static*pompUnit=loop_explicit**";
static const char pomp2_ctc_loop_i[] = "146*regionType=parallelfor*sscl=imbalance.c:58:58*escl=imbalance.c:60:60*scheduleType=static*pompUnit=loop_inferred*pompImplicitBarrier=inferred**";
static const char pomp2_ctc_threads_x[] = "96*regionType=parallel*sscl=imbalance.c:72:72*escl=imbalance.c:80:80*pompUnit=threads_explicit**";
static const char pomp2_ctc_threads_i[] = "126*regionType=parallel*sscl=imbalance.c:88:88*escl=imbalance.c:92:92*pompUnit=threads_inferred*pompImplicitBarrier=inferred**";

void POMP2_Init_reg_imbalance_c_1(void) {
    POMP2_Assign_handle(&pomp2_region_loop_x, pomp2_ctc_loop_x);
    POMP2_Assign_handle(&pomp2_region_loop_i, pomp2_ctc_loop_i);
    POMP2_Assign_handle(&pomp2_region_threads_x, pomp2_ctc_threads_x);
    POMP2_Assign_handle(&pomp2_region_threads_i, pomp2_ctc_threads_i);
}
void POMP2_Init_regions(void) { POMP2_Init_reg_imbalance_c_1(); }
size_t POMP2_Get_num_regions(void) { return 4; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

#define MAX_REPS 64
#define MAX_THREADS 8
static double loop_arrivals[MAX_REPS][MAX_THREADS];
static double threads_arrivals[MAX_REPS][MAX_THREADS];

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_until(double deadline) {
    struct timespec ts;
    ts.tv_sec = (time_t)deadline;
    ts.tv_nsec = (long)((deadline - ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
}

/* Iteration i costs i units; a thread's statically scheduled chunk of the
 * iterations ends when all of its iterations up to i would have ended. */
static void iteration(int i, int n, double unit, double start) {
    int chunk = n / omp_get_num_threads();
    int first = i / chunk * chunk;
    sleep_until(start + unit * (first + i) * (i - first + 1) / 2.0);
}

static void loop_explicit(int n, double unit) {
    double start = now();
    { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&pomp2_region_loop_x, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_loop_x);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads)
      { POMP2_Parallel_begin(&pomp2_region_loop_x);
        POMP2_For_enter(&pomp2_region_loop_x, pomp2_ctc_loop_x);
#pragma omp for schedule(static) nowait
        for (int i = 0; i < n; i++) iteration(i, n, unit, start);
        { POMP2_Task_handle pomp2_old_task;
          POMP2_Implicit_barrier_enter(&pomp2_region_loop_x, &pomp2_old_task);
#pragma omp barrier
          POMP2_Implicit_barrier_exit(&pomp2_region_loop_x, pomp2_old_task); }
        POMP2_For_exit(&pomp2_region_loop_x);
        POMP2_Parallel_end(&pomp2_region_loop_x); }
      POMP2_Parallel_join(&pomp2_region_loop_x, pomp2_old_task); }
}

static void loop_inferred(int n, double unit, int rep) {
    double start = now();
    { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&pomp2_region_loop_i, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_loop_i);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads)
      { POMP2_Parallel_begin(&pomp2_region_loop_i);
        POMP2_For_enter(&pomp2_region_loop_i, pomp2_ctc_loop_i);
#pragma omp for schedule(static) nowait
        for (int i = 0; i < n; i++) iteration(i, n, unit, start);
        POMP2_For_exit(&pomp2_region_loop_i);
        loop_arrivals[rep][omp_get_thread_num()] = now();
        POMP2_Parallel_end(&pomp2_region_loop_i); }
      POMP2_Parallel_join(&pomp2_region_loop_i, pomp2_old_task); }
}

static void threads_explicit(double unit) {
    double start = now();
    { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&pomp2_region_threads_x, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_threads_x);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads)
      { POMP2_Parallel_begin(&pomp2_region_threads_x);
        sleep_until(start + omp_get_thread_num() * unit);
        { POMP2_Task_handle pomp2_old_task;
          POMP2_Implicit_barrier_enter(&pomp2_region_threads_x, &pomp2_old_task);
#pragma omp barrier
          POMP2_Implicit_barrier_exit(&pomp2_region_threads_x, pomp2_old_task); }
        POMP2_Parallel_end(&pomp2_region_threads_x); }
      POMP2_Parallel_join(&pomp2_region_threads_x, pomp2_old_task); }
}

static void threads_inferred(double unit, int rep) {
    double start = now();
    { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&pomp2_region_threads_i, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_threads_i);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads)
      { POMP2_Parallel_begin(&pomp2_region_threads_i);
        sleep_until(start + omp_get_thread_num() * unit);
        threads_arrivals[rep][omp_get_thread_num()] = now();
        POMP2_Parallel_end(&pomp2_region_threads_i); }
      POMP2_Parallel_join(&pomp2_region_threads_i, pomp2_old_task); }
}

/* Each thread's waiting summed over the repetitions, in nanoseconds. */
static void print_waiting(const char *name, double arrivals[][MAX_THREADS], int reps,
                          int threads) {
    for (int t = 0; t < threads; t++) {
        double waited = 0;
        for (int rep = 0; rep < reps; rep++) {
            double release = 0;
            for (int u = 0; u < threads; u++)
                if (arrivals[rep][u] > release) release = arrivals[rep][u];
            waited += release - arrivals[rep][t];
        }
        printf("%s_%d=%.0f ", name, t, waited * 1e9);
    }
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 8;
    int iterations = argc > 2 ? atoi(argv[2]) : 20;
    double unit = argc > 3 ? atof(argv[3]) : 200e-6;
    int threads = omp_get_max_threads();
    if (reps > MAX_REPS || threads > MAX_THREADS) return 2;
    for (int rep = 0; rep < reps; rep++) {
        loop_explicit(iterations, unit);
        loop_inferred(iterations, unit, rep);
        threads_explicit(iterations * unit);
        threads_inferred(iterations * unit, rep);
    }
    print_waiting("loop_waited", loop_arrivals, reps, threads);
    print_waiting("threads_waited", threads_arrivals, reps, threads);
    printf("reps=%d\n", reps);
    return 0;
}
