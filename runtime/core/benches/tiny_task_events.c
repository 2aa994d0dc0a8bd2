/* The events of corpus/bench/task_counter.pomp.c's tiny task, called in a
 * loop on one thread as they reach the runtime when the task runs inside
 * its creation, for counting instructions per task:
 *
 *   gcc -O2 -o tiny runtime/core/benches/tiny_task_events.c \
 *       target/release/libpomp_runtime.a -lgomp -lpthread -ldl -lm
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null ./tiny 200000
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null ./tiny 400000
 *
 * The difference of the two totals ("Collected") over 200000 is the cost
 * of one task: throttled when run with POMP_THROTTLE_PERCALL=1000 (every
 * node is untimed after its first 100000 visits; the default 10 us is too
 * close to what a task takes under valgrind to be sure of that), timed
 * with POMP_THROTTLE=0. Run with POMP_SUMMARY=0 and POMP_PROFILE=/dev/null
 * to leave no file behind. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *POMP2_Region_handle;
typedef int64_t POMP2_Task_handle;
void POMP2_Assign_handle(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Parallel_fork(POMP2_Region_handle *h, int if_clause, int num_threads,
                         POMP2_Task_handle *old_task, const char ctc[]);
void POMP2_Parallel_begin(POMP2_Region_handle *h);
void POMP2_Parallel_end(POMP2_Region_handle *h);
void POMP2_Parallel_join(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Task_create_begin(POMP2_Region_handle *h, POMP2_Task_handle *new_task,
                             POMP2_Task_handle *old_task, int if_clause, const char ctc[]);
void POMP2_Task_create_end(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Task_begin(POMP2_Region_handle *h, POMP2_Task_handle task);
void POMP2_Task_end(POMP2_Region_handle *h);
void POMP2_Atomic_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Atomic_exit(POMP2_Region_handle *h);

static POMP2_Region_handle parallel_region = NULL;
static POMP2_Region_handle task_region = NULL;
static POMP2_Region_handle atomic_region = NULL;
static const char parallel_ctc[] = "104*regionType=parallel*sscl=tiny.c:12:12*escl=tiny.c:21:21*pompUnit=main*pompImplicitBarrier=inferred**";
static const char task_ctc[] = "70*regionType=task*sscl=tiny.c:15:15*escl=tiny.c:19:19*pompUnit=main**";
static const char atomic_ctc[] = "72*regionType=atomic*sscl=tiny.c:17:17*escl=tiny.c:18:18*pompUnit=main**";

void POMP2_Init_regions(void) {
    POMP2_Assign_handle(&parallel_region, parallel_ctc);
    POMP2_Assign_handle(&task_region, task_ctc);
    POMP2_Assign_handle(&atomic_region, atomic_ctc);
}
size_t POMP2_Get_num_regions(void) { return 3; }
const char *POMP2_Get_opari2_version(void) { return "pomp-bench"; }

int main(int argc, char **argv) {
    long tasks = argc > 1 ? atol(argv[1]) : 200000;
    volatile long counter = 0;
    POMP2_Task_handle implicit_task;
    POMP2_Parallel_fork(&parallel_region, 1, 1, &implicit_task, parallel_ctc);
    POMP2_Parallel_begin(&parallel_region);
    for (long i = 0; i < tasks; i++) {
        POMP2_Task_handle new_task, old_task;
        POMP2_Task_create_begin(&task_region, &new_task, &old_task, 1, task_ctc);
        POMP2_Task_begin(&task_region, new_task);
        POMP2_Atomic_enter(&atomic_region, atomic_ctc);
        counter++;
        POMP2_Atomic_exit(&atomic_region);
        POMP2_Task_end(&task_region);
        POMP2_Task_create_end(&task_region, old_task);
    }
    POMP2_Parallel_end(&parallel_region);
    POMP2_Parallel_join(&parallel_region, implicit_task);
    printf("counter=%ld\n", counter);
    return 0;
}
