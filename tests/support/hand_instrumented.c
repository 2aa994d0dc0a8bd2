/*
 * A program instrumented by hand the way pomp instruments C (see POMP2.md):
 * it proves that pomp2_check.c accepts correct instrumentation, and, built
 * with -DBREAK_NESTING, that it rejects constructs closed out of order.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

typedef void *POMP2_Region_handle;
typedef int64_t POMP2_Task_handle;
void POMP2_Parallel_fork(POMP2_Region_handle *, int, int, POMP2_Task_handle *, const char *);
void POMP2_Parallel_begin(POMP2_Region_handle *);
void POMP2_Parallel_end(POMP2_Region_handle *);
void POMP2_Parallel_join(POMP2_Region_handle *, POMP2_Task_handle);
void POMP2_For_enter(POMP2_Region_handle *, const char *);
void POMP2_For_exit(POMP2_Region_handle *);
void POMP2_Implicit_barrier_enter(POMP2_Region_handle *, POMP2_Task_handle *);
void POMP2_Implicit_barrier_exit(POMP2_Region_handle *, POMP2_Task_handle);
void POMP2_Critical_enter(POMP2_Region_handle *, const char *);
void POMP2_Critical_begin(POMP2_Region_handle *);
void POMP2_Critical_end(POMP2_Region_handle *);
void POMP2_Critical_exit(POMP2_Region_handle *);
void POMP2_Single_enter(POMP2_Region_handle *, const char *);
void POMP2_Single_begin(POMP2_Region_handle *);
void POMP2_Single_end(POMP2_Region_handle *);
void POMP2_Single_exit(POMP2_Region_handle *);
void POMP2_Task_create_begin(POMP2_Region_handle *, POMP2_Task_handle *, POMP2_Task_handle *,
                             int, const char *);
void POMP2_Task_create_end(POMP2_Region_handle *, POMP2_Task_handle);
void POMP2_Task_begin(POMP2_Region_handle *, POMP2_Task_handle);
void POMP2_Task_end(POMP2_Region_handle *);
void POMP2_Taskwait_begin(POMP2_Region_handle *, POMP2_Task_handle *, const char *);
void POMP2_Taskwait_end(POMP2_Region_handle *, POMP2_Task_handle);
void POMP2_Begin(POMP2_Region_handle *, const char *);
void POMP2_End(POMP2_Region_handle *);
void POMP2_Assign_handle(POMP2_Region_handle *, const char *);
void POMP2_USER_Assign_handle(POMP2_Region_handle *, const char *);
void POMP2_Set_lock(omp_lock_t *);
void POMP2_Unset_lock(omp_lock_t *);
void POMP2_Init_lock(omp_lock_t *);
void POMP2_Destroy_lock(omp_lock_t *);

static POMP2_Region_handle parallel_region, critical_region, single_region, task_region,
    taskwait_region, user_region;
#define CTC_PARALLEL "75*regionType=parallel*sscl=hand.c:60:60*escl=hand.c:90:90*hasReduction=1**"
#define CTC_CRITICAL "60*regionType=critical*sscl=hand.c:70:70*escl=hand.c:71:71**"
#define CTC_SINGLE "58*regionType=single*sscl=hand.c:72:72*escl=hand.c:80:80**"
#define CTC_TASK "56*regionType=task*sscl=hand.c:74:74*escl=hand.c:76:76**"
#define CTC_TASKWAIT "60*regionType=taskwait*sscl=hand.c:78:78*escl=hand.c:78:78**"
#define CTC_USER                                                                             \
    "98*regionType=userRegion*sscl=hand.c:50:50*escl=hand.c:95:95*userRegionName=all**"       \
    "pompType=region**"

void POMP2_Init_reg_hand_5(void)
{
    POMP2_Assign_handle(&parallel_region, CTC_PARALLEL);
    POMP2_Assign_handle(&critical_region, CTC_CRITICAL);
    POMP2_Assign_handle(&single_region, CTC_SINGLE);
    POMP2_Assign_handle(&task_region, CTC_TASK);
    POMP2_Assign_handle(&taskwait_region, CTC_TASKWAIT);
}

void POMP2_USER_Init_reg_hand_1(void)
{
    POMP2_USER_Assign_handle(&user_region, CTC_USER);
}

int main(void)
{
    long sum = 0, tasks_run = 0, locked = 0;
    omp_lock_t lock;
    POMP2_Begin(&user_region, CTC_USER);
    POMP2_Init_lock(&lock);
    {
        int pomp2_num_threads = omp_get_max_threads();
        int pomp2_if = 1;
        POMP2_Task_handle pomp2_old_task;
        POMP2_Parallel_fork(&parallel_region, pomp2_if, pomp2_num_threads, &pomp2_old_task,
                            CTC_PARALLEL);
#pragma omp parallel firstprivate(pomp2_old_task) if (pomp2_if) num_threads(pomp2_num_threads) \
    reduction(+ : sum)
        {
            POMP2_Parallel_begin(&parallel_region);
            POMP2_For_enter(&parallel_region, CTC_PARALLEL);
#pragma omp for nowait
            for (int i = 1; i <= 100; i++)
                sum += i;
            {
                POMP2_Task_handle pomp2_old_task;
                POMP2_Implicit_barrier_enter(&parallel_region, &pomp2_old_task);
#pragma omp barrier
                POMP2_Implicit_barrier_exit(&parallel_region, pomp2_old_task);
            }
            POMP2_For_exit(&parallel_region);
            POMP2_Critical_enter(&critical_region, CTC_CRITICAL);
#pragma omp critical
            {
                POMP2_Critical_begin(&critical_region);
                POMP2_Set_lock(&lock);
                locked++;
                POMP2_Unset_lock(&lock);
#ifndef BREAK_NESTING
                POMP2_Critical_end(&critical_region);
#endif
            }
            POMP2_Critical_exit(&critical_region);
#ifdef BREAK_NESTING
            POMP2_Critical_end(&critical_region);
#endif
            POMP2_Single_enter(&single_region, CTC_SINGLE);
#pragma omp single nowait
            {
                POMP2_Single_begin(&single_region);
                for (int t = 0; t < 8; t++) {
                    POMP2_Task_handle pomp2_new_task, pomp2_old_task;
                    int pomp2_if = 1;
                    POMP2_Task_create_begin(&task_region, &pomp2_new_task, &pomp2_old_task,
                                            pomp2_if, CTC_TASK);
#pragma omp task if (pomp2_if) firstprivate(pomp2_new_task, pomp2_if) shared(tasks_run)
                    {
                        POMP2_Task_begin(&task_region, pomp2_new_task);
#pragma omp atomic
                        tasks_run++;
                        POMP2_Task_end(&task_region);
                    }
                    POMP2_Task_create_end(&task_region, pomp2_old_task);
                }
                {
                    POMP2_Task_handle pomp2_old_task;
                    POMP2_Taskwait_begin(&taskwait_region, &pomp2_old_task, CTC_TASKWAIT);
#pragma omp taskwait
                    POMP2_Taskwait_end(&taskwait_region, pomp2_old_task);
                }
                POMP2_Single_end(&single_region);
            }
            {
                POMP2_Task_handle pomp2_old_task;
                POMP2_Implicit_barrier_enter(&single_region, &pomp2_old_task);
#pragma omp barrier
                POMP2_Implicit_barrier_exit(&single_region, pomp2_old_task);
            }
            POMP2_Single_exit(&single_region);
            POMP2_Parallel_end(&parallel_region);
        }
        POMP2_Parallel_join(&parallel_region, pomp2_old_task);
    }
    POMP2_Destroy_lock(&lock);
    POMP2_End(&user_region);
    printf("sum %ld tasks %ld locked-by-all %d\n", sum, tasks_run, locked == omp_get_max_threads());
    return sum == 5050 && tasks_run == 8 ? 0 : 1;
}
