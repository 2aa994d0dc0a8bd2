/* Threads that record events and end long before the program does: a
 * round of WORKERS threads, or as many rounds as the argument says. */
#include "pomp2_lib.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 3

static POMP2_Region_handle pomp2_region_work = NULL;
static const char pomp2_ctc_work[] = "92*regionType=region*sscl=thread_exit.c:20:20*escl=thread_exit.c:22:22*userRegionName=work**";

void POMP2_Init_reg_thread_exit_c_1(void) { POMP2_USER_Assign_handle(&pomp2_region_work, pomp2_ctc_work); }
void POMP2_Init_regions(void) { POMP2_Init_reg_thread_exit_c_1(); }
size_t POMP2_Get_num_regions(void) { return 1; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }

static void *work(void *arg) {
    (void)arg;
    for (int i = 0; i < 10; i++) {
        POMP2_Begin(&pomp2_region_work, pomp2_ctc_work);
        POMP2_End(&pomp2_region_work);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    pthread_t threads[WORKERS];
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < WORKERS; i++) pthread_create(&threads[i], NULL, work, NULL);
        for (int i = 0; i < WORKERS; i++) pthread_join(threads[i], NULL);
    }
    printf("joined=%d\n", WORKERS * rounds);
    return 0;
}
