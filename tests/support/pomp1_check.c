/* A checking library for the original POMP interface, in both spellings:
 * OPARI 1.1's library's (`--interface pomp1`: `pomp_parallel_fork(d)` in C,
 * `pomp_parallel_fork_(&index)` in Fortran, where the index is the region's
 * entry in the link-time table `pomp_rd_table[POMP_MAX_ID]`) and, built
 * with -DPOMP1_PAPER, the 2002 proposal's (`--interface pomp1-paper`:
 * `POMP_Parallel_fork(d)` in C, the descriptor itself passed from Fortran).
 * Every event thus reaches a region's context descriptor. The library
 * checks that each descriptor is well formed (name, file, ordered lines, a
 * chain through `next` that ends), that under OPARI 1.1's convention it is
 * in the table, that every enter/begin has its exit/end on the same thread
 * with the same descriptor, and writes a report to $POMP_CHECK_OUT
 * (default stderr) at exit:
 *     pomp1_check: regions seen: N
 *     pomp1_check: events: N
 *     pomp1_check: OK            (or: pomp1_check: N violations)
 * preceded by one line per region seen, in the order of their first lines:
 *     pomp1_check: region NAME SUB_NAME FILE:B1-BN:E1-EN sections=N
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ompregdescr {
    const char *name;
    const char *sub_name;
    int num_sections;
    const char *file_name;
    int begin_first_line;
    int begin_last_line;
    int end_first_line;
    int end_last_line;
    void *data;
    struct ompregdescr *next;
};

#define MAX_DEPTH 256
#define MAX_CHAIN 100000
#define MAX_LISTED 4096

struct frame {
    struct ompregdescr *region;
    const char *event;
};

static __thread struct frame stack[MAX_DEPTH];
static __thread int depth;
static unsigned long events, regions_seen, violations;
static char first_violation[512];
static struct ompregdescr *listed[MAX_LISTED];

/* Called also from within the pomp1_check critical section: a lock of its
 * own, or the thread would wait for itself. */
static void violation(const char *what, const struct ompregdescr *d) {
    #pragma omp critical(pomp1_check_violation)
    {
        if (violations++ == 0)
            snprintf(first_violation, sizeof first_violation, "%s (region %s at %s:%d)", what,
                     d && d->name ? d->name : "?", d && d->file_name ? d->file_name : "?",
                     d ? d->begin_first_line : 0);
    }
}

#ifndef POMP1_PAPER
/* The link step defines the table when the program calls the interface;
 * a program without such calls, which this library is linked to anyway,
 * has none. */
extern int POMP_MAX_ID __attribute__((weak));
extern struct ompregdescr *pomp_rd_table[] __attribute__((weak));

static int in_table(const struct ompregdescr *d) {
    for (int i = 1; &POMP_MAX_ID && i < POMP_MAX_ID; i++)
        if (pomp_rd_table[i] == d)
            return 1;
    return 0;
}

/* A Fortran event's region: the table's entry at the index passed. */
static struct ompregdescr *by_index(const int *index) {
    static struct ompregdescr unknown = {"?", "?", 0, "?", 1, 1, 1, 1, 0, 0};
    if (!&POMP_MAX_ID || !index || *index < 1 || *index >= POMP_MAX_ID ||
        !pomp_rd_table[*index]) {
        violation("Fortran event with an index outside pomp_rd_table", &unknown);
        return &unknown;
    }
    return pomp_rd_table[*index];
}
#endif

static void seen(struct ompregdescr *d) {
    #pragma omp atomic
    events++;
    if (d->data)
        return;
    #pragma omp critical(pomp1_check)
    {
        if (!d->data) {
            d->data = d;
            if (regions_seen < MAX_LISTED)
                listed[regions_seen] = d;
            regions_seen++;
            if (!d->name || !d->sub_name || !d->file_name || !*d->file_name)
                violation("descriptor without name or file", d);
            else if (d->begin_first_line < 1 || d->begin_last_line < d->begin_first_line ||
                     d->end_first_line < d->begin_last_line ||
                     d->end_last_line < d->end_first_line)
                violation("descriptor lines out of order", d);
            else if (d->num_sections < 0 ||
                     (d->num_sections > 0 && strcmp(d->name, "sections") != 0 &&
                      strcmp(d->name, "parallelsections") != 0))
                violation("section count on a region that has no sections", d);
            int links = 0;
            for (struct ompregdescr *n = d->next; n && links < MAX_CHAIN; n = n->next)
                links++;
            if (links >= MAX_CHAIN)
                violation("descriptor chain does not end", d);
#ifndef POMP1_PAPER
            if (!in_table(d))
                violation("descriptor missing from pomp_rd_table", d);
#endif
        }
    }
}

static void open_frame(struct ompregdescr *d, const char *event) {
    seen(d);
    if (depth == MAX_DEPTH) {
        violation("nesting too deep", d);
        return;
    }
    stack[depth].region = d;
    stack[depth].event = event;
    depth++;
}

static void close_frame(struct ompregdescr *d, const char *opened_by) {
    seen(d);
    if (depth == 0 || stack[depth - 1].region != d || strcmp(stack[depth - 1].event, opened_by)) {
        violation("improper nesting", d);
        return;
    }
    depth--;
}

/* Each event under its C names (OPARI 1.1's lower case and the proposal's
 * spelling) and its Fortran one (lower case, trailing underscore, its
 * argument passed by reference: the region's index in the table, or the
 * proposal's descriptor). */
#ifdef POMP1_PAPER
#define FORTRAN_REGION(argument) ((struct ompregdescr *)(argument))
#else
#define FORTRAN_REGION(argument) by_index((const int *)(argument))
#endif
#define PAIR(open_name, close_name, open_lower, close_lower)                             \
    void POMP_##open_name(struct ompregdescr *d) { open_frame(d, #open_name); }         \
    void POMP_##close_name(struct ompregdescr *d) { close_frame(d, #open_name); }       \
    void pomp_##open_lower(struct ompregdescr *d) { open_frame(d, #open_name); }        \
    void pomp_##close_lower(struct ompregdescr *d) { close_frame(d, #open_name); }      \
    void pomp_##open_lower##_(void *r) { open_frame(FORTRAN_REGION(r), #open_name); }   \
    void pomp_##close_lower##_(void *r) { close_frame(FORTRAN_REGION(r), #open_name); }

PAIR(Parallel_fork, Parallel_join, parallel_fork, parallel_join)
PAIR(Parallel_begin, Parallel_end, parallel_begin, parallel_end)
PAIR(For_enter, For_exit, for_enter, for_exit)
PAIR(Do_enter, Do_exit, do_enter, do_exit)
PAIR(Sections_enter, Sections_exit, sections_enter, sections_exit)
PAIR(Section_begin, Section_end, section_begin, section_end)
PAIR(Single_enter, Single_exit, single_enter, single_exit)
PAIR(Single_begin, Single_end, single_begin, single_end)
PAIR(Workshare_enter, Workshare_exit, workshare_enter, workshare_exit)
PAIR(Master_begin, Master_end, master_begin, master_end)
PAIR(Critical_enter, Critical_exit, critical_enter, critical_exit)
PAIR(Critical_begin, Critical_end, critical_begin, critical_end)
PAIR(Atomic_enter, Atomic_exit, atomic_enter, atomic_exit)
PAIR(Ordered_enter, Ordered_exit, ordered_enter, ordered_exit)
PAIR(Ordered_begin, Ordered_end, ordered_begin, ordered_end)
PAIR(Barrier_enter, Barrier_exit, barrier_enter, barrier_exit)
PAIR(Flush_enter, Flush_exit, flush_enter, flush_exit)
PAIR(Begin, End, begin, end)

void POMP_Init(void) {}
void POMP_Finalize(void) {}
void POMP_On(void) {}
void POMP_Off(void) {}
void pomp_init(void) {}
void pomp_finalize(void) {}
void pomp_on(void) {}
void pomp_off(void) {}
void pomp_init_(void) {}
void pomp_finalize_(void) {}
void pomp_on_(void) {}
void pomp_off_(void) {}

void POMP_Init_lock(omp_lock_t *l) { omp_init_lock(l); }
void POMP_Destroy_lock(omp_lock_t *l) { omp_destroy_lock(l); }
void POMP_Set_lock(omp_lock_t *l) { omp_set_lock(l); }
void POMP_Unset_lock(omp_lock_t *l) { omp_unset_lock(l); }
int POMP_Test_lock(omp_lock_t *l) { return omp_test_lock(l); }
void POMP_Init_nest_lock(omp_nest_lock_t *l) { omp_init_nest_lock(l); }
void POMP_Destroy_nest_lock(omp_nest_lock_t *l) { omp_destroy_nest_lock(l); }
void POMP_Set_nest_lock(omp_nest_lock_t *l) { omp_set_nest_lock(l); }
void POMP_Unset_nest_lock(omp_nest_lock_t *l) { omp_unset_nest_lock(l); }
int POMP_Test_nest_lock(omp_nest_lock_t *l) { return omp_test_nest_lock(l); }
void pomp_init_lock(omp_lock_t *l) { omp_init_lock(l); }
void pomp_destroy_lock(omp_lock_t *l) { omp_destroy_lock(l); }
void pomp_set_lock(omp_lock_t *l) { omp_set_lock(l); }
void pomp_unset_lock(omp_lock_t *l) { omp_unset_lock(l); }
int pomp_test_lock(omp_lock_t *l) { return omp_test_lock(l); }
void pomp_init_nest_lock(omp_nest_lock_t *l) { omp_init_nest_lock(l); }
void pomp_destroy_nest_lock(omp_nest_lock_t *l) { omp_destroy_nest_lock(l); }
void pomp_set_nest_lock(omp_nest_lock_t *l) { omp_set_nest_lock(l); }
void pomp_unset_nest_lock(omp_nest_lock_t *l) { omp_unset_nest_lock(l); }
int pomp_test_nest_lock(omp_nest_lock_t *l) { return omp_test_nest_lock(l); }

/* libgomp's own Fortran entry points know how a Fortran lock variable is
 * laid out. */
#define FORTRAN_LOCK(lower)                                                               \
    extern void omp_##lower##_(void *lock);                                               \
    void pomp_##lower##_(void *lock) { omp_##lower##_(lock); }

FORTRAN_LOCK(init_lock)
FORTRAN_LOCK(destroy_lock)
FORTRAN_LOCK(set_lock)
FORTRAN_LOCK(unset_lock)
FORTRAN_LOCK(init_nest_lock)
FORTRAN_LOCK(destroy_nest_lock)
FORTRAN_LOCK(set_nest_lock)
FORTRAN_LOCK(unset_nest_lock)

extern int omp_test_lock_(void *lock);
extern int omp_test_nest_lock_(void *lock);
int pomp_test_lock_(void *lock) { return omp_test_lock_(lock); }
int pomp_test_nest_lock_(void *lock) { return omp_test_nest_lock_(lock); }

static const char *or_unknown(const char *text) { return text ? text : "?"; }

static int by_position(const void *a, const void *b) {
    const struct ompregdescr *x = *(struct ompregdescr *const *)a;
    const struct ompregdescr *y = *(struct ompregdescr *const *)b;
    int files = strcmp(or_unknown(x->file_name), or_unknown(y->file_name));
    if (files)
        return files;
    if (x->begin_first_line != y->begin_first_line)
        return x->begin_first_line - y->begin_first_line;
    return strcmp(or_unknown(x->name), or_unknown(y->name));
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("POMP_CHECK_OUT");
    FILE *out = path ? fopen(path, "w") : stderr;
    if (!out)
        return;
    if (depth != 0)
        violation("regions still open at exit", stack[depth - 1].region);
    unsigned long count = regions_seen < MAX_LISTED ? regions_seen : MAX_LISTED;
    qsort(listed, count, sizeof listed[0], by_position);
    for (unsigned long i = 0; i < count; i++) {
        const struct ompregdescr *d = listed[i];
        fprintf(out, "pomp1_check: region %s %s %s:%d-%d:%d-%d sections=%d\n",
                or_unknown(d->name), or_unknown(d->sub_name), or_unknown(d->file_name), d->begin_first_line, d->begin_last_line,
                d->end_first_line, d->end_last_line, d->num_sections);
    }
    fprintf(out, "pomp1_check: regions seen: %lu\n", regions_seen);
    fprintf(out, "pomp1_check: events: %lu\n", events);
    if (violations == 0)
        fprintf(out, "pomp1_check: OK\n");
    else
        fprintf(out, "pomp1_check: %lu violations, first: %s\n", violations, first_violation);
    if (out != stderr)
        fclose(out);
}
