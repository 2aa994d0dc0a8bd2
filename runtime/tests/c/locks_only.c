/* A program whose instrumented constructs never run: its only POMP2 calls
 * are the lock routines' initialisation and destruction. */
#include "pomp2_lib.h"
#include <stdio.h>

static POMP2_Region_handle pomp2_region_par = NULL;
static const char pomp2_ctc_par[] = "72*regionType=parallel*sscl=locks_only.c:20:20*escl=locks_only.c:21:21**";

void POMP2_Init_regions(void) { POMP2_Assign_handle(&pomp2_region_par, pomp2_ctc_par); }
size_t POMP2_Get_num_regions(void) { return 1; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

int main(int argc, char **argv) {
    (void)argv;
    omp_lock_t lock;
    POMP2_Init_lock(&lock);
    if (argc > 1) {
        /* the parallel region, which this run does not reach */
        POMP2_Parallel_begin(&pomp2_region_par);
        POMP2_Parallel_end(&pomp2_region_par);
    }
    POMP2_Destroy_lock(&lock);
    printf("done=1\n");
    return 0;
}
