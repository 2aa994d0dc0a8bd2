/* Tiny tasks that each increment a counter, and a user region that
 * sleeps, per thread: throttling must stop timing the former and not the
 * latter, and count every visit of both. */
#include "pomp2_lib.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static POMP2_Region_handle pomp2_region_par = NULL;
static POMP2_Region_handle pomp2_region_task = NULL;
static POMP2_Region_handle pomp2_region_atomic = NULL;
static POMP2_Region_handle pomp2_region_nap = NULL;
static const char pomp2_ctc_par[] = "82*regionType=parallel*sscl=throttle.c:30:30*escl=throttle.c:60:60*pompUnit=main**";
static const char pomp2_ctc_task[] = "78*regionType=task*sscl=throttle.c:34:34*escl=throttle.c:40:40*pompUnit=main**";
static const char pomp2_ctc_atomic[] = "80*regionType=atomic*sscl=throttle.c:37:37*escl=throttle.c:38:38*pompUnit=main**";
static const char pomp2_ctc_nap[] = "99*regionType=region*sscl=throttle.c:44:44*escl=throttle.c:47:47*userRegionName=nap*pompUnit=main**";

void POMP2_Init_reg_throttle_c_1(void) {
    POMP2_Assign_handle(&pomp2_region_par, pomp2_ctc_par);
    POMP2_Assign_handle(&pomp2_region_task, pomp2_ctc_task);
    POMP2_Assign_handle(&pomp2_region_atomic, pomp2_ctc_atomic);
    POMP2_USER_Assign_handle(&pomp2_region_nap, pomp2_ctc_nap);
}
void POMP2_Init_regions(void) { POMP2_Init_reg_throttle_c_1(); }
size_t POMP2_Get_num_regions(void) { return 4; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

int main(int argc, char **argv) {
    long tasks_per_thread = argc > 1 ? atol(argv[1]) : 3000;
    long naps_per_thread = argc > 2 ? atol(argv[2]) : 1500;
    long counter = 0, naps = 0;
    { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&pomp2_region_par, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_par);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads) shared(counter, naps)
      { POMP2_Parallel_begin(&pomp2_region_par);
        for (long i = 0; i < tasks_per_thread; i++) {
          { POMP2_Task_handle pomp2_new_task; POMP2_Task_handle pomp2_old_task; int pomp2_if = 1;
            POMP2_Task_create_begin(&pomp2_region_task, &pomp2_new_task, &pomp2_old_task, pomp2_if, pomp2_ctc_task);
#pragma omp task firstprivate(pomp2_new_task, pomp2_if) if(pomp2_if) shared(counter)
            { POMP2_Task_begin(&pomp2_region_task, pomp2_new_task);
              { POMP2_Atomic_enter(&pomp2_region_atomic, pomp2_ctc_atomic);
#pragma omp atomic
                counter++;
                POMP2_Atomic_exit(&pomp2_region_atomic); }
              POMP2_Task_end(&pomp2_region_task); }
            POMP2_Task_create_end(&pomp2_region_task, pomp2_old_task); }
        }
        for (long i = 0; i < naps_per_thread; i++) {
          POMP2_Begin(&pomp2_region_nap, pomp2_ctc_nap);
          usleep(20);
#pragma omp atomic
          naps++;
          POMP2_End(&pomp2_region_nap);
        }
        { POMP2_Task_handle pomp2_old_task;
          POMP2_Implicit_barrier_enter(&pomp2_region_par, &pomp2_old_task);
#pragma omp barrier
          POMP2_Implicit_barrier_exit(&pomp2_region_par, pomp2_old_task); }
        POMP2_Parallel_end(&pomp2_region_par); }
      POMP2_Parallel_join(&pomp2_region_par, pomp2_old_task); }
    printf("counter=%ld naps=%ld\n", counter, naps);
    return 0;
}
