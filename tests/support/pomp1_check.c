/* A checking library for the original POMP interface (`--interface
 * pomp1`): every event receives a region's static context descriptor. The
 * library checks that each descriptor is well formed (name, file, ordered
 * lines, a chain through `next` that ends), that every enter/begin has its
 * exit/end on the same thread with the same descriptor, and writes a report
 * to $POMP_CHECK_OUT (default stderr) at exit:
 *     pomp1_check: regions seen: N
 *     pomp1_check: events: N
 *     pomp1_check: OK            (or: pomp1_check: N violations)
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

struct frame {
    struct ompregdescr *region;
    const char *event;
};

static __thread struct frame stack[MAX_DEPTH];
static __thread int depth;
static unsigned long events, regions_seen, violations;
static char first_violation[512];

static void violation(const char *what, const struct ompregdescr *d) {
    #pragma omp critical(pomp1_check)
    {
        if (violations++ == 0)
            snprintf(first_violation, sizeof first_violation, "%s (region %s at %s:%d)", what,
                     d && d->name ? d->name : "?", d && d->file_name ? d->file_name : "?",
                     d ? d->begin_first_line : 0);
    }
}

static void seen(struct ompregdescr *d) {
    #pragma omp atomic
    events++;
    if (d->data)
        return;
    #pragma omp critical(pomp1_check)
    {
        if (!d->data) {
            d->data = d;
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

#define PAIR(open_name, close_name)                                                     \
    void POMP_##open_name(struct ompregdescr *d) { open_frame(d, #open_name); }         \
    void POMP_##close_name(struct ompregdescr *d) { close_frame(d, #open_name); }

PAIR(Parallel_fork, Parallel_join)
PAIR(Parallel_begin, Parallel_end)
PAIR(For_enter, For_exit)
PAIR(Do_enter, Do_exit)
PAIR(Sections_enter, Sections_exit)
PAIR(Section_begin, Section_end)
PAIR(Single_enter, Single_exit)
PAIR(Single_begin, Single_end)
PAIR(Workshare_enter, Workshare_exit)
PAIR(Master_begin, Master_end)
PAIR(Critical_enter, Critical_exit)
PAIR(Critical_begin, Critical_end)
PAIR(Atomic_enter, Atomic_exit)
PAIR(Ordered_enter, Ordered_exit)
PAIR(Ordered_begin, Ordered_end)
PAIR(Barrier_enter, Barrier_exit)
PAIR(Flush_enter, Flush_exit)
PAIR(Begin, End)

void POMP_Init(void) {}
void POMP_Finalize(void) {}
void POMP_On(void) {}
void POMP_Off(void) {}

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

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("POMP_CHECK_OUT");
    FILE *out = path ? fopen(path, "w") : stderr;
    if (!out)
        return;
    if (depth != 0)
        violation("regions still open at exit", stack[depth - 1].region);
    fprintf(out, "pomp1_check: regions seen: %lu\n", regions_seen);
    fprintf(out, "pomp1_check: events: %lu\n", events);
    if (violations == 0)
        fprintf(out, "pomp1_check: OK\n");
    else
        fprintf(out, "pomp1_check: %lu violations, first: %s\n", violations, first_violation);
    if (out != stderr)
        fclose(out);
}
