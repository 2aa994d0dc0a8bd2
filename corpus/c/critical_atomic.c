/* critical (unnamed, named, with hint) and atomic (read, write, update,
 * capture, capture with a block, compare), some statements spanning lines. */
#include <omp.h>
#include <stdio.h>

#define N 400

int main(void)
{
    int failures = 0;

    long unnamed = 0, named = 0, hinted = 0;
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
#pragma omp critical
        unnamed += i;
#pragma omp critical(named_counter)
        {
            named += 2 * i;
        }
#pragma omp critical(hinted_counter) hint(omp_sync_hint_contended)
        hinted++;
    }
    printf("critical: %ld %ld %ld\n", unnamed, named, hinted);
    failures += unnamed != (long)N * (N - 1) / 2 || named != 2 * unnamed || hinted != N;

    long counter = 0, total = 0, maximum = 0, written = 0;
    int captured_distinct = 0;
    static char seen[N];
#pragma omp parallel for reduction(+ : total)
    for (int i = 0; i < N; i++) {
        long ticket;
#pragma omp atomic capture
        ticket = counter++;
        if (ticket >= 0 && ticket < N)
            seen[ticket] = 1;
#pragma omp atomic update
        maximum +=
            0;
        long snapshot;
#pragma omp atomic read
        snapshot = counter;
        total += snapshot > 0;
#pragma omp atomic write
        written = 42;
#pragma omp atomic
        total
            +=
            1;
    }
    for (int i = 0; i < N; i++)
        captured_distinct += seen[i];
    printf("atomic capture tickets: %d of %d, counter %ld\n", captured_distinct, N, counter);
    printf("atomic read/update/write: %ld %ld %ld\n", total, maximum, written);
    failures += captured_distinct != N || counter != N || total != 2 * N || written != 42;

    long level = 0, levels_seen_total = 0;
#pragma omp parallel for reduction(+ : levels_seen_total)
    for (int i = 0; i < N; i++) {
        long before;
#pragma omp atomic capture
        {
            before = level;
            level += 3;
        }
        levels_seen_total += before % 3 == 0;
    }
    printf("atomic capture block: level %ld, multiples %ld\n", level, levels_seen_total);
    failures += level != 3 * N || levels_seen_total != N;

    int highest = 0;
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        int candidate = (i * 37) % N;
#pragma omp atomic compare
        if (highest < candidate) {
            highest = candidate;
        }
    }
    printf("atomic compare max: %d\n", highest);
    failures += highest != N - 1;

    if (failures) {
        printf("FAILED\n");
        return 1;
    }
    printf("critical_atomic: ok\n");
    return 0;
}
