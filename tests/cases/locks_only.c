/* No directive at all, but lock routines: the calls are still measured,
 * while a mere mention of one in a string or comment (omp_set_lock) is not. */
#include <omp.h>

static omp_lock_t lock;
static const char *doc = "call omp_unset_lock when done";

void update(int *counter) {
    omp_set_lock(&lock);
    (*counter)++;
    omp_unset_lock(&lock);
}
