/* Worksharing, synchronisation, locks and a user region, instrumented by
 * hand as pomp instruments them. Prints what it did so the test can compare
 * the profile with it. */
#include "pomp2_lib.h"
#include <stdio.h>
#include <stdlib.h>

static POMP2_Region_handle pomp2_region_user = NULL;
static POMP2_Region_handle pomp2_region_par = NULL;
static POMP2_Region_handle pomp2_region_for = NULL;
static POMP2_Region_handle pomp2_region_crit = NULL;
static POMP2_Region_handle pomp2_region_atomic = NULL;
static POMP2_Region_handle pomp2_region_single = NULL;
static POMP2_Region_handle pomp2_region_master = NULL;
static POMP2_Region_handle pomp2_region_barrier = NULL;
static const char pomp2_ctc_user[] = "103*regionType=region*sscl=basic.c:40:40*escl=basic.c:99:99*userRegionName=main_loop*pompId=basic.c#1**";
static const char pomp2_ctc_par[] = "95*regionType=parallel*sscl=basic.c:42:42*escl=basic.c:97:97*hasNumThreads=1*pompId=basic.c#2**";
static const char pomp2_ctc_for[] = "110*regionType=for*sscl=basic.c:45:45*escl=basic.c:46:46*hasReduction=1*scheduleType=static*pompId=basic.c#3**";
static const char pomp2_ctc_crit[] = "95*regionType=critical*sscl=basic.c:50:50*escl=basic.c:52:52*criticalName=io*pompId=basic.c#4**";
static const char pomp2_ctc_atomic[] = "77*regionType=atomic*sscl=basic.c:55:55*escl=basic.c:56:56*pompId=basic.c#5**";
static const char pomp2_ctc_single[] = "77*regionType=single*sscl=basic.c:60:60*escl=basic.c:62:62*pompId=basic.c#6**";
static const char pomp2_ctc_master[] = "77*regionType=master*sscl=basic.c:70:70*escl=basic.c:72:72*pompId=basic.c#7**";
static const char pomp2_ctc_barrier[] = "78*regionType=barrier*sscl=basic.c:75:75*escl=basic.c:75:75*pompId=basic.c#8**";

void POMP2_Init_reg_basic_c_1(void) {
    POMP2_USER_Assign_handle(&pomp2_region_user, pomp2_ctc_user);
    POMP2_Assign_handle(&pomp2_region_par, pomp2_ctc_par);
    POMP2_Assign_handle(&pomp2_region_for, pomp2_ctc_for);
    POMP2_Assign_handle(&pomp2_region_crit, pomp2_ctc_crit);
    POMP2_Assign_handle(&pomp2_region_atomic, pomp2_ctc_atomic);
    POMP2_Assign_handle(&pomp2_region_single, pomp2_ctc_single);
    POMP2_Assign_handle(&pomp2_region_master, pomp2_ctc_master);
    POMP2_Assign_handle(&pomp2_region_barrier, pomp2_ctc_barrier);
}

/* What the link step generates. */
static int init_regions_calls = 0;
void POMP2_Init_regions(void) { init_regions_calls++; POMP2_Init_reg_basic_c_1(); }
size_t POMP2_Get_num_regions(void) { return 8; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    long sum = 0;
    int critical_hits = 0, atomic_hits = 0, lock_hits = 0, single_hits = 0, master_hits = 0;
    int team_size = 0;
    omp_lock_t lock;
    POMP2_Init_lock(&lock);
    POMP2_Begin(&pomp2_region_user, pomp2_ctc_user);
    for (int rep = 0; rep < reps; rep++) {
        { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
          POMP2_Task_handle pomp2_old_task;
          POMP2_Parallel_fork(&pomp2_region_par, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_par);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads) shared(sum, critical_hits, atomic_hits, lock_hits, single_hits, master_hits, lock, team_size)
          { POMP2_Parallel_begin(&pomp2_region_par);
            { POMP2_For_enter(&pomp2_region_for, pomp2_ctc_for);
#pragma omp for reduction(+:sum) nowait
              for (int i = 0; i < 1000; i++) sum += i;
              { POMP2_Task_handle pomp2_old_task;
                POMP2_Implicit_barrier_enter(&pomp2_region_for, &pomp2_old_task);
#pragma omp barrier
                POMP2_Implicit_barrier_exit(&pomp2_region_for, pomp2_old_task); }
              POMP2_For_exit(&pomp2_region_for); }
            { POMP2_Critical_enter(&pomp2_region_crit, pomp2_ctc_crit);
#pragma omp critical(io)
              { POMP2_Critical_begin(&pomp2_region_crit);
                critical_hits++;
                POMP2_Critical_end(&pomp2_region_crit); }
              POMP2_Critical_exit(&pomp2_region_crit); }
            { POMP2_Atomic_enter(&pomp2_region_atomic, pomp2_ctc_atomic);
#pragma omp atomic
              atomic_hits++;
              POMP2_Atomic_exit(&pomp2_region_atomic); }
            { POMP2_Single_enter(&pomp2_region_single, pomp2_ctc_single);
#pragma omp single nowait
              { POMP2_Single_begin(&pomp2_region_single);
                single_hits++;
                team_size = omp_get_num_threads();
                POMP2_Single_end(&pomp2_region_single); }
              { POMP2_Task_handle pomp2_old_task;
                POMP2_Implicit_barrier_enter(&pomp2_region_single, &pomp2_old_task);
#pragma omp barrier
                POMP2_Implicit_barrier_exit(&pomp2_region_single, pomp2_old_task); }
              POMP2_Single_exit(&pomp2_region_single); }
#pragma omp master
            { POMP2_Master_begin(&pomp2_region_master, pomp2_ctc_master);
              master_hits++;
              POMP2_Master_end(&pomp2_region_master); }
            { POMP2_Task_handle pomp2_old_task;
              POMP2_Barrier_enter(&pomp2_region_barrier, &pomp2_old_task, pomp2_ctc_barrier);
#pragma omp barrier
              POMP2_Barrier_exit(&pomp2_region_barrier, pomp2_old_task); }
            POMP2_Set_lock(&lock);
            lock_hits++;
            POMP2_Unset_lock(&lock);
            { POMP2_Task_handle pomp2_old_task;
              POMP2_Implicit_barrier_enter(&pomp2_region_par, &pomp2_old_task);
#pragma omp barrier
              POMP2_Implicit_barrier_exit(&pomp2_region_par, pomp2_old_task); }
            POMP2_Parallel_end(&pomp2_region_par); }
          POMP2_Parallel_join(&pomp2_region_par, pomp2_old_task); }
    }
    POMP2_End(&pomp2_region_user);
    POMP2_Destroy_lock(&lock);
    printf("init_regions_calls=%d team=%d sum=%ld critical=%d atomic=%d lock=%d single=%d master=%d\n",
           init_regions_calls, team_size, sum, critical_hits, atomic_hits, lock_hits, single_hits,
           master_hits);
    return 0;
}
