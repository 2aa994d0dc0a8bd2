/*
 * A POMP2 measurement library that measures nothing and checks everything
 * instrumented code does to it:
 *   - every enter/begin has its exit/end, on the same task, properly nested;
 *   - task handles handed back at exits/joins are the ones handed out;
 *   - every region handle was assigned by POMP2_Assign_handle during
 *     POMP2_Init_regions, or by POMP2_USER_Assign_handle during
 *     POMP2_USER_Init_regions (user regions), which this library calls
 *     exactly once, lazily;
 *   - every CTC string is well formed;
 *   - the number of assigned handles equals POMP2_Get_num_regions(), and
 *     that of user handles POMP2_USER_Get_num_regions().
 * At exit it writes a summary to $POMP_CHECK_OUT (stderr if unset; never
 * stdout, which the tests compare) and, on any violation, ends the process
 * with status 97.
 *
 * Nesting is tracked per task rather than per thread: a thread suspends a
 * task at scheduling points (taskwait, barriers) and may run other tasks in
 * between. Tied tasks resume on the thread that suspended them, so the tasks
 * a thread is executing form a stack, and each task keeps its own stack of
 * open constructs.
 */
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *POMP2_Region_handle;
typedef int64_t POMP2_Task_handle;

extern void POMP2_Init_regions(void);
extern size_t POMP2_Get_num_regions(void);
extern void POMP2_USER_Init_regions(void);
extern size_t POMP2_USER_Get_num_regions(void);
extern const char *POMP2_Get_opari2_version(void);

#define VIOLATION_EXIT_STATUS 97
#define MAX_KEPT_VIOLATIONS 25

/* ---- events --------------------------------------------------------------- */

#define EVENT_LIST(X)                                                          \
    X(Parallel_fork) X(Parallel_join) X(Parallel_begin) X(Parallel_end)        \
    X(For_enter) X(For_exit) X(Do_enter) X(Do_exit)                            \
    X(Sections_enter) X(Sections_exit) X(Section_begin) X(Section_end)         \
    X(Single_enter) X(Single_exit) X(Single_begin) X(Single_end)               \
    X(Master_begin) X(Master_end)                                              \
    X(Critical_enter) X(Critical_exit) X(Critical_begin) X(Critical_end)       \
    X(Atomic_enter) X(Atomic_exit)                                             \
    X(Ordered_enter) X(Ordered_exit) X(Ordered_begin) X(Ordered_end)           \
    X(Workshare_enter) X(Workshare_exit)                                       \
    X(Barrier_enter) X(Barrier_exit)                                           \
    X(Implicit_barrier_enter) X(Implicit_barrier_exit)                         \
    X(Flush_enter) X(Flush_exit)                                               \
    X(Task_create_begin) X(Task_create_end) X(Task_begin) X(Task_end)          \
    X(Untied_task_create_begin) X(Untied_task_create_end)                      \
    X(Untied_task_begin) X(Untied_task_end)                                    \
    X(Taskwait_begin) X(Taskwait_end)                                          \
    X(Begin) X(End)                                                            \
    X(Init) X(Finalize) X(On) X(Off)                                           \
    X(Init_lock) X(Destroy_lock) X(Set_lock) X(Unset_lock) X(Test_lock)        \
    X(Init_nest_lock) X(Destroy_nest_lock) X(Set_nest_lock)                    \
    X(Unset_nest_lock) X(Test_nest_lock)                                       \
    X(Masked_begin) X(Masked_end)                                              \
    X(Taskgroup_enter) X(Taskgroup_exit)                                       \
    X(Taskloop_enter) X(Taskloop_exit)                                         \
    X(Scope_enter) X(Scope_exit)                                               \
    X(Loop_enter) X(Loop_exit)                                                 \
    X(Teams_enter) X(Teams_exit)                                               \
    X(Distribute_enter) X(Distribute_exit)                                     \
    X(Target_enter) X(Target_exit)                                             \
    X(Taskyield_begin) X(Taskyield_end)                                        \
    X(Cancel) X(Cancellation_point)

#define AS_ENUM(name) EV_##name,
enum event { EVENT_LIST(AS_ENUM) EVENT_COUNT };
#define AS_NAME(name) #name,
static const char *const event_names[EVENT_COUNT] = {EVENT_LIST(AS_NAME)};

static unsigned long event_counts[EVENT_COUNT];

/* ---- violations ------------------------------------------------------------ */

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long violation_count;
static char *kept_violations[MAX_KEPT_VIOLATIONS];

static void violation(const char *format, ...)
{
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    pthread_mutex_lock(&state_lock);
    if (violation_count < MAX_KEPT_VIOLATIONS)
        kept_violations[violation_count] = strdup(message);
    violation_count++;
    pthread_mutex_unlock(&state_lock);
}

/* ---- regions ----------------------------------------------------------------- */

#define REGION_MAGIC 0x506f6d7032526567ULL

struct region {
    unsigned long long magic;
    char *region_type;
    char *ctc;
    /* The CTC says the library infers the waiting at the region's closing
     * barrier: the instrumented code must not make it explicit. */
    int barrier_inferred;
    unsigned long events;
    struct region *next;
};

static struct region *all_regions;
static unsigned long assigned_regions, assigned_user_regions;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Which registration runs: 1 of constructs, 2 of user regions. */
static int initialising;

/* Returns the regionType value (malloc'd) or NULL after reporting why the
 * string is not a CTC string. `text` need not be NUL-terminated (Fortran). */
static char *parse_ctc(const char *text, size_t length, const char *where)
{
    if (text == NULL) {
        violation("%s: NULL CTC string", where);
        return NULL;
    }
    char *endptr;
    unsigned long declared = strtoul(text, &endptr, 10);
    if (endptr == text || (size_t)(endptr - text) >= length || *endptr != '*') {
        violation("%s: CTC string lacks a length prefix: %.*s", where, (int)length, text);
        return NULL;
    }
    if (declared != length) {
        violation("%s: CTC length prefix %lu but the string has %zu characters: %.*s",
                  where, declared, length, (int)length, text);
        return NULL;
    }
    if (length < 2 || text[length - 1] != '*' || text[length - 2] != '*') {
        violation("%s: CTC string does not end with '**': %.*s", where, (int)length, text);
        return NULL;
    }
    static const char key[] = "*regionType=";
    const char *found = NULL;
    for (size_t i = 0; i + sizeof key - 1 <= length; i++)
        if (memcmp(text + i, key, sizeof key - 1) == 0) {
            found = text + i + sizeof key - 1;
            break;
        }
    if (found == NULL) {
        violation("%s: CTC string has no regionType: %.*s", where, (int)length, text);
        return NULL;
    }
    size_t type_length = 0;
    while (found + type_length < text + length && found[type_length] != '*')
        type_length++;
    if (type_length == 0) {
        violation("%s: CTC string has an empty regionType: %.*s", where, (int)length, text);
        return NULL;
    }
    return strndup(found, type_length);
}

static void assign_handle(POMP2_Region_handle *handle, const char *ctc, size_t ctc_length,
                          const char *where, int user)
{
    if (initialising != (user ? 2 : 1))
        violation("%s called outside %s", where,
                  user ? "POMP2_USER_Init_regions" : "POMP2_Init_regions");
    if (handle == NULL) {
        violation("%s: NULL handle address", where);
        return;
    }
    if (*handle != NULL) {
        violation("%s: handle %p assigned twice", where, (void *)handle);
        return;
    }
    struct region *region = calloc(1, sizeof *region);
    region->magic = REGION_MAGIC;
    region->region_type = parse_ctc(ctc, ctc_length, where);
    if (region->region_type == NULL)
        region->region_type = strdup("(invalid)");
    region->ctc = ctc ? strndup(ctc, ctc_length) : strdup("");
    region->barrier_inferred = strstr(region->ctc, "*pompImplicitBarrier=inferred*") != NULL;
    pthread_mutex_lock(&state_lock);
    region->next = all_regions;
    all_regions = region;
    if (user)
        assigned_user_regions++;
    else
        assigned_regions++;
    pthread_mutex_unlock(&state_lock);
    *handle = region;
}

static void init_regions_once(void)
{
    initialising = 1;
    POMP2_Init_regions();
    initialising = 2;
    POMP2_USER_Init_regions();
    initialising = 0;
    size_t declared = POMP2_Get_num_regions();
    if (declared != assigned_regions)
        violation("POMP2_Get_num_regions() says %zu regions, but %lu handles were assigned",
                  declared, assigned_regions);
    declared = POMP2_USER_Get_num_regions();
    if (declared != assigned_user_regions)
        violation("POMP2_USER_Get_num_regions() says %zu regions, but %lu user handles were "
                  "assigned",
                  declared, assigned_user_regions);
}

static void ensure_initialised(void) { pthread_once(&init_once, init_regions_once); }

/* ---- tasks and nesting ------------------------------------------------------------ */

struct frame {
    enum event opened_by;
    POMP2_Region_handle *handle;
};

struct task {
    POMP2_Task_handle id;
    /* For a parallel region's implicit task: the region, and how many of
     * its own implicit barriers this thread passed. */
    POMP2_Region_handle *parallel;
    unsigned long own_barriers;
    struct task *suspended; /* the task this thread returns to afterwards */
    struct frame *frames;
    size_t depth, capacity;
};

static POMP2_Task_handle last_task_id;
static __thread struct task *current_task;

static struct task *new_task(POMP2_Task_handle id, struct task *suspended)
{
    struct task *task = calloc(1, sizeof *task);
    task->id = id;
    task->suspended = suspended;
    return task;
}

static POMP2_Task_handle fresh_task_id(void) { return __atomic_add_fetch(&last_task_id, 1, __ATOMIC_RELAXED); }

/* The thread's innermost task; outside any parallel region this is the
 * thread's own initial task. */
static struct task *this_task(void)
{
    if (current_task == NULL)
        current_task = new_task(fresh_task_id(), NULL);
    return current_task;
}

static void count_event(enum event event, POMP2_Region_handle *handle)
{
    __atomic_add_fetch(&event_counts[event], 1, __ATOMIC_RELAXED);
    if (handle != NULL && *handle != NULL)
        __atomic_add_fetch(&((struct region *)*handle)->events, 1, __ATOMIC_RELAXED);
}

static int valid_handle(enum event event, POMP2_Region_handle *handle)
{
    if (handle == NULL) {
        violation("%s: NULL handle address", event_names[event]);
        return 0;
    }
    if (*handle == NULL) {
        violation("%s: handle %p was never assigned by POMP2_Assign_handle",
                  event_names[event], (void *)handle);
        return 0;
    }
    if (((struct region *)*handle)->magic != REGION_MAGIC) {
        violation("%s: handle %p does not hold a region of this library",
                  event_names[event], (void *)handle);
        return 0;
    }
    return 1;
}

static void check_ctc(enum event event, const char *ctc, size_t length)
{
    free(parse_ctc(ctc, length, event_names[event]));
}

static void push(struct task *task, enum event event, POMP2_Region_handle *handle)
{
    if (task->depth == task->capacity) {
        task->capacity = task->capacity ? 2 * task->capacity : 16;
        task->frames = realloc(task->frames, task->capacity * sizeof *task->frames);
    }
    task->frames[task->depth++] = (struct frame){event, handle};
}

static const char *region_type_of(POMP2_Region_handle *handle)
{
    return handle && *handle ? ((struct region *)*handle)->region_type : "?";
}

static void pop(struct task *task, enum event closing, enum event expected_opener,
                POMP2_Region_handle *handle)
{
    if (task->depth == 0) {
        violation("%s (%s) without %s in task %lld", event_names[closing], region_type_of(handle),
                  event_names[expected_opener], (long long)task->id);
        return;
    }
    struct frame top = task->frames[task->depth - 1];
    if (top.opened_by != expected_opener || top.handle != handle) {
        violation("%s (%s) closes %s (%s) in task %lld: improper nesting", event_names[closing],
                  region_type_of(handle), event_names[top.opened_by], region_type_of(top.handle),
                  (long long)task->id);
        /* Only drop the frame when it is ours further down, so one error
         * does not cascade into many. */
        for (size_t i = task->depth; i-- > 0;)
            if (task->frames[i].opened_by == expected_opener && task->frames[i].handle == handle) {
                task->depth = i;
                return;
            }
        return;
    }
    task->depth--;
}

static void expect_task(enum event event, POMP2_Task_handle given)
{
    if (given != this_task()->id)
        violation("%s: task handle %lld, but the current task is %lld", event_names[event],
                  (long long)given, (long long)this_task()->id);
}

/* Every region event goes through one of these: an event that neither
 * opens nor closes anything, one that opens, one that closes. */
static void single_event(enum event event, POMP2_Region_handle *handle, const char *ctc,
                         size_t ctc_length)
{
    ensure_initialised();
    if (ctc != NULL)
        check_ctc(event, ctc, ctc_length);
    count_event(event, valid_handle(event, handle) ? handle : NULL);
}

static void opening(enum event event, POMP2_Region_handle *handle, const char *ctc,
                    size_t ctc_length)
{
    single_event(event, handle, ctc, ctc_length);
    push(this_task(), event, handle);
}

static void closing(enum event event, enum event opener, POMP2_Region_handle *handle)
{
    single_event(event, handle, NULL, 0);
    pop(this_task(), event, opener, handle);
}

/* A new task starts on this thread: implicit (parallel) or explicit. */
static void task_starts(enum event event, POMP2_Region_handle *handle, POMP2_Task_handle id)
{
    ensure_initialised();
    count_event(event, valid_handle(event, handle) ? handle : NULL);
    struct task *task = new_task(id, this_task());
    if (event == EV_Parallel_begin)
        task->parallel = handle;
    current_task = task;
    push(task, event, handle);
}

/* A region whose CTC says the library infers the waiting at its closing
 * barrier makes no barrier of its own explicit; a plain parallel region
 * without that says ends in exactly one (OPARI2's structure). */
static void check_closing_barrier(struct task *task)
{
    POMP2_Region_handle *handle = task->parallel;
    if (handle == NULL || *handle == NULL)
        return;
    struct region *region = *handle;
    /* A combined construct's worksharing part ends where the region does:
     * when the barrier is inferred, it has none of its own either. */
    if (region->barrier_inferred && task->own_barriers != 0)
        violation("Parallel_end: the CTC says the barrier is inferred, but the region made it "
                  "explicit %lu time(s): %s", task->own_barriers, region->ctc);
    if (strcmp(region->region_type, "parallel") != 0)
        return;
    if (!region->barrier_inferred && task->own_barriers != 1)
        violation("Parallel_end: a parallel region without an inferred barrier passed %lu "
                  "implicit barriers of its own instead of 1: %s", task->own_barriers, region->ctc);
}

static void task_ends(enum event event, enum event opener, POMP2_Region_handle *handle)
{
    ensure_initialised();
    count_event(event, valid_handle(event, handle) ? handle : NULL);
    struct task *task = this_task();
    pop(task, event, opener, handle);
    if (event == EV_Parallel_end)
        check_closing_barrier(task);
    if (task->depth != 0) {
        violation("%s: task %lld ends with %zu constructs still open (innermost %s)",
                  event_names[event], (long long)task->id, task->depth,
                  event_names[task->frames[task->depth - 1].opened_by]);
    }
    if (task->suspended == NULL) {
        violation("%s: the thread's initial task cannot end", event_names[event]);
        return;
    }
    current_task = task->suspended;
    free(task->frames);
    free(task);
}

static size_t c_length(const char *ctc) { return ctc ? strlen(ctc) : 0; }

/* ---- the C interface ------------------------------------------------------------------- */

#define C_PAIR(opener, closer)                                                               \
    void POMP2_##opener(POMP2_Region_handle *h, const char *ctc)                             \
    {                                                                                        \
        opening(EV_##opener, h, ctc, c_length(ctc));                                         \
    }                                                                                        \
    void POMP2_##closer(POMP2_Region_handle *h) { closing(EV_##closer, EV_##opener, h); }

#define C_INNER_PAIR(opener, closer)                                                         \
    void POMP2_##opener(POMP2_Region_handle *h) { opening(EV_##opener, h, NULL, 0); }        \
    void POMP2_##closer(POMP2_Region_handle *h) { closing(EV_##closer, EV_##opener, h); }

C_PAIR(For_enter, For_exit)
C_PAIR(Do_enter, Do_exit)
C_PAIR(Sections_enter, Sections_exit)
C_PAIR(Section_begin, Section_end)
C_PAIR(Single_enter, Single_exit)
C_INNER_PAIR(Single_begin, Single_end)
C_PAIR(Master_begin, Master_end)
C_PAIR(Critical_enter, Critical_exit)
C_INNER_PAIR(Critical_begin, Critical_end)
C_PAIR(Atomic_enter, Atomic_exit)
C_PAIR(Ordered_enter, Ordered_exit)
C_INNER_PAIR(Ordered_begin, Ordered_end)
C_PAIR(Workshare_enter, Workshare_exit)
C_PAIR(Flush_enter, Flush_exit)
C_PAIR(Begin, End)
C_PAIR(Masked_begin, Masked_end)
C_PAIR(Taskgroup_enter, Taskgroup_exit)
C_PAIR(Taskloop_enter, Taskloop_exit)
C_PAIR(Scope_enter, Scope_exit)
C_PAIR(Loop_enter, Loop_exit)
C_PAIR(Teams_enter, Teams_exit)
C_PAIR(Distribute_enter, Distribute_exit)
C_PAIR(Target_enter, Target_exit)
C_PAIR(Taskyield_begin, Taskyield_end)

void POMP2_Cancel(POMP2_Region_handle *h, const char *ctc)
{
    single_event(EV_Cancel, h, ctc, c_length(ctc));
}
void POMP2_Cancellation_point(POMP2_Region_handle *h, const char *ctc)
{
    single_event(EV_Cancellation_point, h, ctc, c_length(ctc));
}

void POMP2_Parallel_fork(POMP2_Region_handle *h, int if_clause, int num_threads,
                         POMP2_Task_handle *old_task, const char *ctc)
{
    (void)if_clause;
    opening(EV_Parallel_fork, h, ctc, c_length(ctc));
    if (num_threads < 1)
        violation("Parallel_fork: num_threads %d", num_threads);
    if (old_task == NULL)
        violation("Parallel_fork: NULL task handle address");
    else
        *old_task = this_task()->id;
}
void POMP2_Parallel_join(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    closing(EV_Parallel_join, EV_Parallel_fork, h);
    expect_task(EV_Parallel_join, old_task);
}
void POMP2_Parallel_begin(POMP2_Region_handle *h) { task_starts(EV_Parallel_begin, h, fresh_task_id()); }
void POMP2_Parallel_end(POMP2_Region_handle *h) { task_ends(EV_Parallel_end, EV_Parallel_begin, h); }

#define C_WAIT_PAIR(opener, closer)                                                          \
    void POMP2_##opener(POMP2_Region_handle *h, POMP2_Task_handle *old_task, const char *ctc) \
    {                                                                                        \
        opening(EV_##opener, h, ctc, c_length(ctc));                                         \
        if (old_task == NULL)                                                                \
            violation(#opener ": NULL task handle address");                                 \
        else                                                                                 \
            *old_task = this_task()->id;                                                     \
    }                                                                                        \
    void POMP2_##closer(POMP2_Region_handle *h, POMP2_Task_handle old_task)                  \
    {                                                                                        \
        closing(EV_##closer, EV_##opener, h);                                                \
        expect_task(EV_##closer, old_task);                                                  \
    }

C_WAIT_PAIR(Barrier_enter, Barrier_exit)
C_WAIT_PAIR(Taskwait_begin, Taskwait_end)

void POMP2_Implicit_barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task)
{
    opening(EV_Implicit_barrier_enter, h, NULL, 0);
    if (old_task == NULL)
        violation("Implicit_barrier_enter: NULL task handle address");
    else
        *old_task = this_task()->id;
}
void POMP2_Implicit_barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    closing(EV_Implicit_barrier_exit, EV_Implicit_barrier_enter, h);
    expect_task(EV_Implicit_barrier_exit, old_task);
    if (this_task()->parallel == h)
        this_task()->own_barriers++;
}

#define C_TASK(prefix)                                                                       \
    void POMP2_##prefix##_create_begin(POMP2_Region_handle *h, POMP2_Task_handle *new_task,  \
                                       POMP2_Task_handle *old_task, int if_clause,           \
                                       const char *ctc)                                      \
    {                                                                                        \
        (void)if_clause;                                                                     \
        opening(EV_##prefix##_create_begin, h, ctc, c_length(ctc));                          \
        if (new_task == NULL || old_task == NULL) {                                          \
            violation(#prefix "_create_begin: NULL task handle address");                    \
            return;                                                                          \
        }                                                                                    \
        *old_task = this_task()->id;                                                         \
        *new_task = fresh_task_id();                                                         \
    }                                                                                        \
    void POMP2_##prefix##_create_end(POMP2_Region_handle *h, POMP2_Task_handle old_task)     \
    {                                                                                        \
        closing(EV_##prefix##_create_end, EV_##prefix##_create_begin, h);                    \
        expect_task(EV_##prefix##_create_end, old_task);                                     \
    }                                                                                        \
    void POMP2_##prefix##_begin(POMP2_Region_handle *h, POMP2_Task_handle new_task)          \
    {                                                                                        \
        if (new_task <= 0 || new_task > __atomic_load_n(&last_task_id, __ATOMIC_RELAXED))    \
            violation(#prefix "_begin: task handle %lld was never handed out",               \
                      (long long)new_task);                                                  \
        task_starts(EV_##prefix##_begin, h, new_task);                                       \
    }                                                                                        \
    void POMP2_##prefix##_end(POMP2_Region_handle *h)                                        \
    {                                                                                        \
        task_ends(EV_##prefix##_end, EV_##prefix##_begin, h);                                \
    }

C_TASK(Task)
C_TASK(Untied_task)

void POMP2_Assign_handle(POMP2_Region_handle *h, const char *ctc)
{
    assign_handle(h, ctc, c_length(ctc), "POMP2_Assign_handle", 0);
}
void POMP2_USER_Assign_handle(POMP2_Region_handle *h, const char *ctc)
{
    assign_handle(h, ctc, c_length(ctc), "POMP2_USER_Assign_handle", 1);
}

static void control_event(enum event event)
{
    ensure_initialised();
    count_event(event, NULL);
}
void POMP2_Init(void) { control_event(EV_Init); }
void POMP2_Finalize(void) { control_event(EV_Finalize); }
void POMP2_On(void) { control_event(EV_On); }
void POMP2_Off(void) { control_event(EV_Off); }

int POMP2_Lib_get_max_threads(void) { return omp_get_max_threads(); }

#define LOCK_WRAPPER(event, lock_type, call)                                                 \
    void POMP2_##event(lock_type *lock)                                                      \
    {                                                                                        \
        control_event(EV_##event);                                                           \
        call(lock);                                                                          \
    }
LOCK_WRAPPER(Init_lock, omp_lock_t, omp_init_lock)
LOCK_WRAPPER(Destroy_lock, omp_lock_t, omp_destroy_lock)
LOCK_WRAPPER(Set_lock, omp_lock_t, omp_set_lock)
LOCK_WRAPPER(Unset_lock, omp_lock_t, omp_unset_lock)
LOCK_WRAPPER(Init_nest_lock, omp_nest_lock_t, omp_init_nest_lock)
LOCK_WRAPPER(Destroy_nest_lock, omp_nest_lock_t, omp_destroy_nest_lock)
LOCK_WRAPPER(Set_nest_lock, omp_nest_lock_t, omp_set_nest_lock)
LOCK_WRAPPER(Unset_nest_lock, omp_nest_lock_t, omp_unset_nest_lock)
int POMP2_Test_lock(omp_lock_t *lock)
{
    control_event(EV_Test_lock);
    return omp_test_lock(lock);
}
int POMP2_Test_nest_lock(omp_nest_lock_t *lock)
{
    control_event(EV_Test_nest_lock);
    return omp_test_nest_lock(lock);
}

/* ---- the Fortran interface ----------------------------------------------------------------
 * gfortran passes every argument by reference and, for each CHARACTER
 * argument, a hidden length at the end of the argument list. A handle is an
 * INTEGER(KIND=8) that holds the region pointer. */

typedef int64_t fortran_handle;
#define FH(h) ((POMP2_Region_handle *)(h))

#define F_PAIR(lower, opener, closer, lower_closer)                                          \
    void pomp2_##lower##_(fortran_handle *h, const char *ctc, size_t ctc_length)             \
    {                                                                                        \
        opening(EV_##opener, FH(h), ctc, ctc_length);                                        \
    }                                                                                        \
    void pomp2_##lower_closer##_(fortran_handle *h) { closing(EV_##closer, EV_##opener, FH(h)); }

#define F_INNER_PAIR(lower, opener, closer, lower_closer)                                    \
    void pomp2_##lower##_(fortran_handle *h) { opening(EV_##opener, FH(h), NULL, 0); }       \
    void pomp2_##lower_closer##_(fortran_handle *h) { closing(EV_##closer, EV_##opener, FH(h)); }

F_PAIR(for_enter, For_enter, For_exit, for_exit)
F_PAIR(do_enter, Do_enter, Do_exit, do_exit)
F_PAIR(sections_enter, Sections_enter, Sections_exit, sections_exit)
F_PAIR(section_begin, Section_begin, Section_end, section_end)
F_PAIR(single_enter, Single_enter, Single_exit, single_exit)
F_INNER_PAIR(single_begin, Single_begin, Single_end, single_end)
F_PAIR(master_begin, Master_begin, Master_end, master_end)
F_PAIR(critical_enter, Critical_enter, Critical_exit, critical_exit)
F_INNER_PAIR(critical_begin, Critical_begin, Critical_end, critical_end)
F_PAIR(atomic_enter, Atomic_enter, Atomic_exit, atomic_exit)
F_PAIR(ordered_enter, Ordered_enter, Ordered_exit, ordered_exit)
F_INNER_PAIR(ordered_begin, Ordered_begin, Ordered_end, ordered_end)
F_PAIR(workshare_enter, Workshare_enter, Workshare_exit, workshare_exit)
F_PAIR(flush_enter, Flush_enter, Flush_exit, flush_exit)
F_PAIR(begin, Begin, End, end)
F_PAIR(masked_begin, Masked_begin, Masked_end, masked_end)
F_PAIR(taskgroup_enter, Taskgroup_enter, Taskgroup_exit, taskgroup_exit)
F_PAIR(taskloop_enter, Taskloop_enter, Taskloop_exit, taskloop_exit)
F_PAIR(scope_enter, Scope_enter, Scope_exit, scope_exit)
F_PAIR(loop_enter, Loop_enter, Loop_exit, loop_exit)
F_PAIR(teams_enter, Teams_enter, Teams_exit, teams_exit)
F_PAIR(distribute_enter, Distribute_enter, Distribute_exit, distribute_exit)
F_PAIR(target_enter, Target_enter, Target_exit, target_exit)
F_PAIR(taskyield_begin, Taskyield_begin, Taskyield_end, taskyield_end)

void pomp2_cancel_(fortran_handle *h, const char *ctc, size_t ctc_length)
{
    single_event(EV_Cancel, FH(h), ctc, ctc_length);
}
void pomp2_cancellation_point_(fortran_handle *h, const char *ctc, size_t ctc_length)
{
    single_event(EV_Cancellation_point, FH(h), ctc, ctc_length);
}

void pomp2_parallel_fork_(fortran_handle *h, int *if_clause, int *num_threads,
                          POMP2_Task_handle *old_task, const char *ctc, size_t ctc_length)
{
    (void)if_clause;
    opening(EV_Parallel_fork, FH(h), ctc, ctc_length);
    if (*num_threads < 1)
        violation("pomp2_parallel_fork: num_threads %d", *num_threads);
    *old_task = this_task()->id;
}
void pomp2_parallel_join_(fortran_handle *h, POMP2_Task_handle *old_task)
{
    POMP2_Parallel_join(FH(h), *old_task);
}
void pomp2_parallel_begin_(fortran_handle *h) { POMP2_Parallel_begin(FH(h)); }
void pomp2_parallel_end_(fortran_handle *h) { POMP2_Parallel_end(FH(h)); }

#define F_WAIT_PAIR(lower, opener, closer, lower_closer)                                     \
    void pomp2_##lower##_(fortran_handle *h, POMP2_Task_handle *old_task, const char *ctc,   \
                          size_t ctc_length)                                                 \
    {                                                                                        \
        opening(EV_##opener, FH(h), ctc, ctc_length);                                        \
        *old_task = this_task()->id;                                                         \
    }                                                                                        \
    void pomp2_##lower_closer##_(fortran_handle *h, POMP2_Task_handle *old_task)             \
    {                                                                                        \
        POMP2_##closer(FH(h), *old_task);                                                    \
    }

F_WAIT_PAIR(barrier_enter, Barrier_enter, Barrier_exit, barrier_exit)
F_WAIT_PAIR(taskwait_begin, Taskwait_begin, Taskwait_end, taskwait_end)

void pomp2_implicit_barrier_enter_(fortran_handle *h, POMP2_Task_handle *old_task)
{
    POMP2_Implicit_barrier_enter(FH(h), old_task);
}
void pomp2_implicit_barrier_exit_(fortran_handle *h, POMP2_Task_handle *old_task)
{
    POMP2_Implicit_barrier_exit(FH(h), *old_task);
}

#define F_TASK(lower, prefix)                                                                \
    void pomp2_##lower##_create_begin_(fortran_handle *h, POMP2_Task_handle *new_task,       \
                                       POMP2_Task_handle *old_task, int *if_clause,          \
                                       const char *ctc, size_t ctc_length)                   \
    {                                                                                        \
        (void)if_clause;                                                                     \
        opening(EV_##prefix##_create_begin, FH(h), ctc, ctc_length);                         \
        *old_task = this_task()->id;                                                         \
        *new_task = fresh_task_id();                                                         \
    }                                                                                        \
    void pomp2_##lower##_create_end_(fortran_handle *h, POMP2_Task_handle *old_task)         \
    {                                                                                        \
        POMP2_##prefix##_create_end(FH(h), *old_task);                                       \
    }                                                                                        \
    void pomp2_##lower##_begin_(fortran_handle *h, POMP2_Task_handle *new_task)              \
    {                                                                                        \
        POMP2_##prefix##_begin(FH(h), *new_task);                                            \
    }                                                                                        \
    void pomp2_##lower##_end_(fortran_handle *h) { POMP2_##prefix##_end(FH(h)); }

F_TASK(task, Task)
F_TASK(untied_task, Untied_task)

void pomp2_assign_handle_(fortran_handle *h, const char *ctc, size_t ctc_length)
{
    assign_handle(FH(h), ctc, ctc_length, "pomp2_assign_handle", 0);
}
void pomp2_user_assign_handle_(fortran_handle *h, const char *ctc, size_t ctc_length)
{
    assign_handle(FH(h), ctc, ctc_length, "pomp2_user_assign_handle", 1);
}

void pomp2_init_(void) { POMP2_Init(); }
void pomp2_finalize_(void) { POMP2_Finalize(); }
void pomp2_on_(void) { POMP2_On(); }
void pomp2_off_(void) { POMP2_Off(); }
int pomp2_lib_get_max_threads_(void) { return omp_get_max_threads(); }

/* libgomp's own Fortran entry points know how a Fortran lock variable is laid
 * out, so the wrappers forward to them unchanged. */
#define F_LOCK_WRAPPER(lower, event)                                                         \
    extern void omp_##lower##_(void *lock);                                                  \
    void pomp2_##lower##_(void *lock)                                                        \
    {                                                                                        \
        control_event(EV_##event);                                                           \
        omp_##lower##_(lock);                                                                \
    }
F_LOCK_WRAPPER(init_lock, Init_lock)
F_LOCK_WRAPPER(destroy_lock, Destroy_lock)
F_LOCK_WRAPPER(set_lock, Set_lock)
F_LOCK_WRAPPER(unset_lock, Unset_lock)
F_LOCK_WRAPPER(init_nest_lock, Init_nest_lock)
F_LOCK_WRAPPER(destroy_nest_lock, Destroy_nest_lock)
F_LOCK_WRAPPER(set_nest_lock, Set_nest_lock)
F_LOCK_WRAPPER(unset_nest_lock, Unset_nest_lock)
extern int omp_test_lock_(void *lock);
extern int omp_test_nest_lock_(void *lock);
int pomp2_test_lock_(void *lock)
{
    control_event(EV_Test_lock);
    return omp_test_lock_(lock);
}
int pomp2_test_nest_lock_(void *lock)
{
    control_event(EV_Test_nest_lock);
    return omp_test_nest_lock_(lock);
}

/* ---- the summary ----------------------------------------------------------------------- */

static void write_summary(FILE *out)
{
    unsigned long total = 0;
    for (int i = 0; i < EVENT_COUNT; i++)
        total += event_counts[i];
    fprintf(out, "pomp2_check: regions registered: %lu\n", assigned_regions + assigned_user_regions);
    fprintf(out, "pomp2_check: events: %lu\n", total);
    for (int i = 0; i < EVENT_COUNT; i++)
        if (event_counts[i] != 0)
            fprintf(out, "  %-26s %lu\n", event_names[i], event_counts[i]);
    fprintf(out, "pomp2_check: events by region type:\n");
    /* Regions are few; a quadratic walk keeps the summary free of a map. */
    for (struct region *r = all_regions; r != NULL; r = r->next) {
        int seen_before = 0;
        for (struct region *q = all_regions; q != r; q = q->next)
            if (strcmp(q->region_type, r->region_type) == 0)
                seen_before = 1;
        if (seen_before)
            continue;
        unsigned long events = 0, regions = 0;
        for (struct region *q = r; q != NULL; q = q->next)
            if (strcmp(q->region_type, r->region_type) == 0) {
                events += q->events;
                regions++;
            }
        fprintf(out, "  %-26s %lu events in %lu regions\n", r->region_type, events, regions);
    }
    if (violation_count == 0) {
        fprintf(out, "pomp2_check: OK\n");
        return;
    }
    fprintf(out, "pomp2_check: %lu violations\n", violation_count);
    for (unsigned long i = 0; i < violation_count && i < MAX_KEPT_VIOLATIONS; i++)
        fprintf(out, "  %s\n", kept_violations[i]);
    if (violation_count > MAX_KEPT_VIOLATIONS)
        fprintf(out, "  ... and %lu more\n", violation_count - MAX_KEPT_VIOLATIONS);
}

static void at_exit(void)
{
    /* Only the initial thread's own task may remain at exit, with nothing open. */
    struct task *task = current_task;
    if (task != NULL && (task->depth != 0 || task->suspended != NULL))
        violation("at exit: %zu constructs still open (innermost %s)", task->depth,
                  task->depth ? event_names[task->frames[task->depth - 1].opened_by] : "-");
    const char *path = getenv("POMP_CHECK_OUT");
    FILE *out = path && *path ? fopen(path, "w") : NULL;
    if (path && *path && out == NULL)
        fprintf(stderr, "pomp2_check: cannot write %s\n", path);
    write_summary(out ? out : stderr);
    if (out)
        fclose(out);
    if (violation_count != 0) {
        fflush(NULL);
        _exit(VIOLATION_EXIT_STATUS);
    }
}

/* Registered before main runs so that it is the last exit handler to run and
 * sees every event, even of programs that make none. */
__attribute__((constructor)) static void register_summary(void) { atexit(at_exit); }
