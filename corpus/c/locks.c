/* The lock routines: simple locks (init, set, unset, test, destroy) and
 * nestable locks. pomp renames these calls, but never text that only
 * mentions them, such as this: omp_set_lock(&lock) and omp_unset_lock. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

static omp_nest_lock_t nest;
static long nested_entries = 0;

static void enter_twice(int depth)
{
    omp_set_nest_lock(&nest);
    nested_entries++;
    if (depth > 0)
        enter_twice(depth - 1);
    omp_unset_nest_lock(&nest);
}

int main(void)
{
    int failures = 0;
    omp_lock_t lock;
    omp_init_lock(&lock);
    long protected_total = 0;
#pragma omp parallel for
    for (int i = 0; i < 300; i++) {
        omp_set_lock(&lock);
        protected_total += i;
        omp_unset_lock(&lock);
    }
    printf("set/unset total: %ld\n", protected_total);
    failures += protected_total != 300L * 299 / 2;

    /* test_lock: spin with omp_test_lock until acquired. */
    int acquisitions = 0;
#pragma omp parallel for
    for (int i = 0; i < 40; i++) {
        while (!omp_test_lock(&lock))
            ;
        acquisitions++;
        omp_unset_lock( &lock );
    }
    printf("test_lock acquisitions: %d\n", acquisitions);
    failures += acquisitions != 40;
    omp_destroy_lock(&lock);

    omp_init_nest_lock(&nest);
#pragma omp parallel for
    for (int i = 0; i < 10; i++)
        enter_twice(1);
    int depth = omp_test_nest_lock(&nest);
    depth = omp_test_nest_lock(&nest);
    omp_unset_nest_lock(&nest);
    omp_unset_nest_lock(&nest);
    omp_destroy_nest_lock(&nest);
    printf("nest lock entries: %ld, depth reached %d\n", nested_entries, depth);
    failures += nested_entries != 20 || depth != 2;

    /* The text below must survive instrumentation byte for byte. */
    const char *mention = "call omp_set_lock(&l) before omp_unset_lock(&l)";
    printf("%s (%zu)\n", mention, strlen(mention));
    failures += strlen(mention) != 47;

    if (failures) {
        printf("FAILED\n");
        return 1;
    }
    printf("locks: ok\n");
    return 0;
}
