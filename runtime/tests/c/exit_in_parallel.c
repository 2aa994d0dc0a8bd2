/* One thread calls exit() inside a parallel region while the others keep
 * recording events. */
#include "pomp2_lib.h"
#include <stdio.h>
#include <stdlib.h>

static POMP2_Region_handle pomp2_region_par = NULL;
static POMP2_Region_handle pomp2_region_atomic = NULL;
static const char pomp2_ctc_par[] = "84*regionType=parallel*sscl=exit_in_parallel.c:20:20*escl=exit_in_parallel.c:40:40**";
static const char pomp2_ctc_atomic[] = "82*regionType=atomic*sscl=exit_in_parallel.c:30:30*escl=exit_in_parallel.c:31:31**";

void POMP2_Init_reg_exit_c_1(void) {
    POMP2_Assign_handle(&pomp2_region_par, pomp2_ctc_par);
    POMP2_Assign_handle(&pomp2_region_atomic, pomp2_ctc_atomic);
}
void POMP2_Init_regions(void) { POMP2_Init_reg_exit_c_1(); }
size_t POMP2_Get_num_regions(void) { return 2; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

int main(void) {
    volatile long counter = 0;
    { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&pomp2_region_par, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_par);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads) shared(counter)
      { POMP2_Parallel_begin(&pomp2_region_par);
        for (long i = 0; ; i++) {
          POMP2_Atomic_enter(&pomp2_region_atomic, pomp2_ctc_atomic);
#pragma omp atomic
          counter++;
          POMP2_Atomic_exit(&pomp2_region_atomic);
          if (omp_get_thread_num() == 0 && i == 20000) {
            fflush(stdout);
            exit(3);
          }
        }
        POMP2_Parallel_end(&pomp2_region_par); }
      POMP2_Parallel_join(&pomp2_region_par, pomp2_old_task); }
    return 0;
}
