/* fork() after parallel work: the child records its own region and must
 * write its own profile, never the parent's data or file. */
#include "pomp2_lib.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static POMP2_Region_handle pomp2_region_par = NULL;
static POMP2_Region_handle pomp2_region_parent = NULL;
static POMP2_Region_handle pomp2_region_child = NULL;
static const char pomp2_ctc_par[] = "60*regionType=parallel*sscl=fork.c:20:20*escl=fork.c:30:30**";
static const char pomp2_ctc_parent[] = "80*regionType=region*sscl=fork.c:40:40*escl=fork.c:60:60*userRegionName=parent**";
static const char pomp2_ctc_child[] = "79*regionType=region*sscl=fork.c:45:45*escl=fork.c:50:50*userRegionName=child**";

void POMP2_Init_reg_fork_c_1(void) {
    POMP2_Assign_handle(&pomp2_region_par, pomp2_ctc_par);
    POMP2_USER_Assign_handle(&pomp2_region_parent, pomp2_ctc_parent);
    POMP2_USER_Assign_handle(&pomp2_region_child, pomp2_ctc_child);
}
void POMP2_Init_regions(void) { POMP2_Init_reg_fork_c_1(); }
size_t POMP2_Get_num_regions(void) { return 3; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

int main(void) {
    POMP2_Begin(&pomp2_region_parent, pomp2_ctc_parent);
    { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
      POMP2_Task_handle pomp2_old_task;
      POMP2_Parallel_fork(&pomp2_region_par, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_par);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads)
      { POMP2_Parallel_begin(&pomp2_region_par);
        POMP2_Parallel_end(&pomp2_region_par); }
      POMP2_Parallel_join(&pomp2_region_par, pomp2_old_task); }
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        POMP2_Begin(&pomp2_region_child, pomp2_ctc_child);
        POMP2_End(&pomp2_region_child);
        exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    POMP2_End(&pomp2_region_parent);
    printf("parent=%d child=%d child_status=%d\n", (int)getpid(), (int)child, status);
    return 0;
}
