/* Declarations of the POMP2 interface as the test programs use it; an
 * instrumented file carries the same prototypes. */
#ifndef POMP2_TEST_LIB_H
#define POMP2_TEST_LIB_H
#include <omp.h>
#include <stddef.h>
#include <stdint.h>

typedef void *POMP2_Region_handle;
typedef int64_t POMP2_Task_handle;

void POMP2_Init(void);
void POMP2_Finalize(void);
void POMP2_On(void);
void POMP2_Off(void);
void POMP2_Assign_handle(POMP2_Region_handle *h, const char ctc[]);
void POMP2_USER_Assign_handle(POMP2_Region_handle *h, const char ctc[]);

void POMP2_Parallel_fork(POMP2_Region_handle *h, int if_clause, int num_threads,
                         POMP2_Task_handle *old_task, const char ctc[]);
void POMP2_Parallel_begin(POMP2_Region_handle *h);
void POMP2_Parallel_end(POMP2_Region_handle *h);
void POMP2_Parallel_join(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_For_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_For_exit(POMP2_Region_handle *h);
void POMP2_Sections_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Sections_exit(POMP2_Region_handle *h);
void POMP2_Section_begin(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Section_end(POMP2_Region_handle *h);
void POMP2_Single_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Single_begin(POMP2_Region_handle *h);
void POMP2_Single_end(POMP2_Region_handle *h);
void POMP2_Single_exit(POMP2_Region_handle *h);
void POMP2_Master_begin(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Master_end(POMP2_Region_handle *h);
void POMP2_Critical_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Critical_begin(POMP2_Region_handle *h);
void POMP2_Critical_end(POMP2_Region_handle *h);
void POMP2_Critical_exit(POMP2_Region_handle *h);
void POMP2_Atomic_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Atomic_exit(POMP2_Region_handle *h);
void POMP2_Ordered_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Ordered_begin(POMP2_Region_handle *h);
void POMP2_Ordered_end(POMP2_Region_handle *h);
void POMP2_Ordered_exit(POMP2_Region_handle *h);
void POMP2_Barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task, const char ctc[]);
void POMP2_Barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Implicit_barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task);
void POMP2_Implicit_barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Flush_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Flush_exit(POMP2_Region_handle *h);
void POMP2_Task_create_begin(POMP2_Region_handle *h, POMP2_Task_handle *new_task,
                             POMP2_Task_handle *old_task, int if_clause, const char ctc[]);
void POMP2_Task_create_end(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Task_begin(POMP2_Region_handle *h, POMP2_Task_handle task);
void POMP2_Task_end(POMP2_Region_handle *h);
void POMP2_Untied_task_create_begin(POMP2_Region_handle *h, POMP2_Task_handle *new_task,
                                    POMP2_Task_handle *old_task, int if_clause, const char ctc[]);
void POMP2_Untied_task_create_end(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Untied_task_begin(POMP2_Region_handle *h, POMP2_Task_handle task);
void POMP2_Untied_task_end(POMP2_Region_handle *h);
void POMP2_Taskwait_begin(POMP2_Region_handle *h, POMP2_Task_handle *old_task, const char ctc[]);
void POMP2_Taskwait_end(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Begin(POMP2_Region_handle *h, const char ctc[]);
void POMP2_End(POMP2_Region_handle *h);

void POMP2_Taskgroup_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Taskgroup_exit(POMP2_Region_handle *h);
void POMP2_Cancel(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Cancellation_point(POMP2_Region_handle *h, const char ctc[]);

void POMP2_Init_lock(omp_lock_t *lock);
void POMP2_Destroy_lock(omp_lock_t *lock);
void POMP2_Set_lock(omp_lock_t *lock);
void POMP2_Unset_lock(omp_lock_t *lock);
int POMP2_Test_lock(omp_lock_t *lock);
int POMP2_Lib_get_max_threads(void);

#endif
