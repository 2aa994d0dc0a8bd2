/* A recursive function instrumented as a user region, far deeper than a
 * call-path tree should nest. */
#include "pomp2_lib.h"
#include <stdio.h>
#include <stdlib.h>

static POMP2_Region_handle pomp2_region_fn = NULL;
static const char pomp2_ctc_fn[] = "91*regionType=region*sscl=recursion.c:14:14*escl=recursion.c:20:20*userRegionName=descend**";

void POMP2_Init_reg_recursion_c_1(void) { POMP2_USER_Assign_handle(&pomp2_region_fn, pomp2_ctc_fn); }
void POMP2_Init_regions(void) { POMP2_Init_reg_recursion_c_1(); }
size_t POMP2_Get_num_regions(void) { return 1; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

static int descend(int depth) {
    POMP2_Begin(&pomp2_region_fn, pomp2_ctc_fn);
    int reached = depth > 1 ? descend(depth - 1) : 0;
    POMP2_End(&pomp2_region_fn);
    return reached + 1;
}

int main(int argc, char **argv) {
    int depth = argc > 1 ? atoi(argv[1]) : 500;
    printf("reached=%d\n", descend(depth));
    return 0;
}
