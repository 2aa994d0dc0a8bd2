/* Misuse the interface: NULL and unassigned handles, garbage CTC strings,
 * events before initialisation and after finalisation, POMP2_Off. */
#include "pomp2_lib.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static POMP2_Region_handle pomp2_region_for = NULL;
static POMP2_Region_handle pomp2_region_garbled = NULL;
static POMP2_Region_handle pomp2_region_lazy = NULL;
static const char pomp2_ctc_for[] = "75*regionType=for*sscl=robust.c:10:10*escl=robust.c:12:12*someFutureKey=7**";
static const char pomp2_ctc_lazy[] = "61*regionType=flush*sscl=robust.c:20:20*escl=robust.c:20:20**";

void POMP2_Init_reg_robust_c_1(void) {
    POMP2_Assign_handle(&pomp2_region_for, pomp2_ctc_for);
    POMP2_Assign_handle(&pomp2_region_garbled, "17*regionType=cri");
    POMP2_Assign_handle(NULL, pomp2_ctc_for);
    POMP2_Assign_handle(&pomp2_region_for, pomp2_ctc_for); /* a second registration keeps the handle */
}
static int init_regions_calls = 0;
void POMP2_Init_regions(void) { init_regions_calls++; POMP2_Init_reg_robust_c_1(); }
size_t POMP2_Get_num_regions(void) { return 2; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

int main(void) {
    POMP2_Task_handle old_task = 12345;
    POMP2_Region_handle bogus = (POMP2_Region_handle)(long)987654;

    POMP2_For_exit(NULL);
    POMP2_Parallel_end(&pomp2_region_for);
    POMP2_Barrier_enter(NULL, &old_task, NULL);
    int old_task_cleared = old_task == 0;
    POMP2_Barrier_exit(NULL, old_task);
    POMP2_For_enter(&bogus, "garbage");
    POMP2_For_exit(&bogus);
    POMP2_Critical_begin(&pomp2_region_garbled);
    POMP2_Task_end(&pomp2_region_for);

    POMP2_For_enter(&pomp2_region_for, pomp2_ctc_for);
    POMP2_For_exit(&pomp2_region_for);
    POMP2_Off();
    POMP2_For_enter(&pomp2_region_for, pomp2_ctc_for);
    POMP2_For_exit(&pomp2_region_for);
    POMP2_On();
    POMP2_Critical_enter(&pomp2_region_garbled, NULL);
    POMP2_Critical_begin(&pomp2_region_garbled);
    POMP2_Critical_end(&pomp2_region_garbled);
    POMP2_Critical_exit(&pomp2_region_garbled);
    POMP2_Flush_enter(&pomp2_region_lazy, pomp2_ctc_lazy);
    POMP2_Flush_exit(&pomp2_region_lazy);
    POMP2_Flush_enter(&pomp2_region_lazy, pomp2_ctc_lazy);
    POMP2_Flush_exit(&pomp2_region_lazy);

    POMP2_Finalize();
    /* The test names the profile written.json. */
    int renamed = rename("written.json", "finalized.json") == 0;

    POMP2_For_enter(&pomp2_region_for, pomp2_ctc_for);
    POMP2_For_exit(&pomp2_region_for);
    POMP2_Init();
    POMP2_Finalize();
    printf("init_regions_calls=%d old_task_cleared=%d renamed=%d lazy_assigned=%d\n",
           init_regions_calls, old_task_cleared, renamed, pomp2_region_lazy != NULL);
    return 0;
}
