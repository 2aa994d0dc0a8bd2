/* A POMP2 library that records nothing: linking the instrumented
 * benchmarks against it separates the cost of the source transformation
 * (extra barriers, clauses, calls) from the cost of measuring.
 * pomp2_clock.c builds it with one clock read per event. */
#include <stddef.h>
#include <stdint.h>

typedef void *POMP2_Region_handle;
typedef int64_t POMP2_Task_handle;

void POMP2_Init_regions(void);

/* What each event does; nothing here. pomp2_clock.c defines it to read the
 * clock, the least a library that times events must do. */
#ifndef POMP2_EVENT
#define POMP2_EVENT() ((void)0)
#endif

static int initialized = 0;
static void ensure_initialized(void) {
    if (!initialized) {
        initialized = 1;
        POMP2_Init_regions();
    }
}

void POMP2_Assign_handle(POMP2_Region_handle *h, const char ctc[]) {
    (void)ctc;
    *h = (POMP2_Region_handle)1;
}
void POMP2_Parallel_fork(POMP2_Region_handle *h, int if_clause, int num_threads,
                         POMP2_Task_handle *old_task, const char ctc[]) {
    POMP2_EVENT();
    (void)h; (void)if_clause; (void)num_threads; (void)ctc;
    ensure_initialized();
    *old_task = 0;
}
void POMP2_Begin(POMP2_Region_handle *h, const char ctc[]) { POMP2_EVENT(); (void)h; (void)ctc; }
void POMP2_End(POMP2_Region_handle *h) { POMP2_EVENT(); (void)h; }
void POMP2_Parallel_begin(POMP2_Region_handle *h) { POMP2_EVENT(); (void)h; }
void POMP2_Parallel_end(POMP2_Region_handle *h) { POMP2_EVENT(); (void)h; }
void POMP2_Parallel_join(POMP2_Region_handle *h, POMP2_Task_handle old_task) { POMP2_EVENT(); (void)h; (void)old_task; }
void POMP2_For_enter(POMP2_Region_handle *h, const char ctc[]) { POMP2_EVENT(); (void)h; (void)ctc; }
void POMP2_For_exit(POMP2_Region_handle *h) { POMP2_EVENT(); (void)h; }
void POMP2_Atomic_enter(POMP2_Region_handle *h, const char ctc[]) { POMP2_EVENT(); (void)h; (void)ctc; }
void POMP2_Atomic_exit(POMP2_Region_handle *h) { POMP2_EVENT(); (void)h; }
void POMP2_Implicit_barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task) {
    POMP2_EVENT();
    (void)h;
    *old_task = 0;
}
void POMP2_Implicit_barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task) { POMP2_EVENT(); (void)h; (void)old_task; }
void POMP2_Task_create_begin(POMP2_Region_handle *h, POMP2_Task_handle *new_task,
                             POMP2_Task_handle *old_task, int if_clause, const char ctc[]) {
    POMP2_EVENT();
    (void)h; (void)if_clause; (void)ctc;
    *new_task = 1;
    *old_task = 0;
}
void POMP2_Task_create_end(POMP2_Region_handle *h, POMP2_Task_handle old_task) { POMP2_EVENT(); (void)h; (void)old_task; }
void POMP2_Task_begin(POMP2_Region_handle *h, POMP2_Task_handle task) { POMP2_EVENT(); (void)h; (void)task; }
void POMP2_Task_end(POMP2_Region_handle *h) { POMP2_EVENT(); (void)h; }
void POMP2_Single_enter(POMP2_Region_handle *h, const char ctc[]) { POMP2_EVENT(); (void)h; (void)ctc; }
void POMP2_Single_begin(POMP2_Region_handle *h) { POMP2_EVENT(); (void)h; }
void POMP2_Single_end(POMP2_Region_handle *h) { POMP2_EVENT(); (void)h; }
void POMP2_Single_exit(POMP2_Region_handle *h) { POMP2_EVENT(); (void)h; }
void POMP2_Taskwait_begin(POMP2_Region_handle *h, POMP2_Task_handle *old_task, const char ctc[]) {
    POMP2_EVENT();
    (void)h; (void)ctc;
    *old_task = 0;
}
void POMP2_Taskwait_end(POMP2_Region_handle *h, POMP2_Task_handle old_task) { POMP2_EVENT(); (void)h; (void)old_task; }
