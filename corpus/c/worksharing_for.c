/* The for construct: every schedule kind, collapse(2), ordered with an
 * ordered block, nowait, lastprivate, lastprivate(conditional:), linear and
 * an inclusive and an exclusive scan. */
#include <omp.h>
#include <stdio.h>

#define N 200

static int check(const char *what, long got, long expected)
{
    printf("%-28s %ld\n", what, got);
    if (got != expected) {
        printf("FAILED: %s: expected %ld\n", what, expected);
        return 1;
    }
    return 0;
}

static long sum_with_schedule(int kind)
{
    long sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
        switch (kind) {
        case 0:
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                sum += i;
            break;
        case 1:
#pragma omp for schedule(static, 7)
            for (int i = 0; i < N; i++)
                sum += i;
            break;
        case 2:
#pragma omp for schedule(dynamic, 3)
            for (int i = 0; i < N; i++)
                sum += i;
            break;
        case 3:
#pragma omp for schedule(guided)
            for (int i = 0; i < N; i++)
                sum += i;
            break;
        case 4:
#pragma omp for schedule(auto)
            for (int i = 0; i < N; i++)
                sum += i;
            break;
        case 5:
#pragma omp for schedule(runtime)
            for (int i = 0; i < N; i++)
                sum += i;
            break;
        default:
#pragma omp for schedule(monotonic : dynamic)
            for (int i = 0; i < N; i++)
                sum += i;
        }
    }
    return sum;
}

int main(void)
{
    int failures = 0;
    const long expected_sum = (long)N * (N - 1) / 2;
    static const char *const kinds[] = {"static",  "static,7", "dynamic,3",        "guided",
                                        "auto",    "runtime",  "monotonic:dynamic"};
    for (int kind = 0; kind < 7; kind++) {
        char label[64];
        snprintf(label, sizeof label, "schedule(%s)", kinds[kind]);
        failures += check(label, sum_with_schedule(kind), expected_sum);
    }

    /* collapse(2): each cell written exactly once. */
    static int grid[20][30];
    long cells = 0;
#pragma omp parallel
    {
#pragma omp for collapse(2) reduction(+ : cells)
        for (int i = 0; i < 20; i++)
            for (int j = 0; j < 30; j++) {
                grid[i][j] += i * 30 + j;
                cells++;
            }
    }
    long grid_sum = 0;
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 30; j++)
            grid_sum += grid[i][j];
    failures += check("collapse(2) cells", cells, 600);
    failures += check("collapse(2) sum", grid_sum, 600L * 599 / 2);

    /* ordered: the ordered blocks run in iteration order, so the sequence
     * they build is the sequential one. */
    long sequence = 0;
    int in_order = 1, last = -1;
#pragma omp parallel shared(sequence, in_order, last)
    {
#pragma omp for ordered schedule(dynamic, 2)
        for (int i = 0; i < 50; i++) {
            int square = i * i;
#pragma omp ordered
            {
                if (i != last + 1)
                    in_order = 0;
                last = i;
                sequence = (sequence * 31 + square) % 1000003;
            }
        }
    }
    long expected_sequence = 0;
    for (int i = 0; i < 50; i++)
        expected_sequence = (expected_sequence * 31 + i * i) % 1000003;
    failures += check("ordered in order", in_order, 1);
    failures += check("ordered sequence", sequence, expected_sequence);

    /* nowait: two independent loops, the second without waiting; the
     * barrier at the end of the parallel region completes both. */
    static int first[N], second[N];
#pragma omp parallel
    {
#pragma omp for nowait
        for (int i = 0; i < N; i++)
            first[i] = i;
#pragma omp for nowait schedule(static)
        for (int i = 0; i < N; i++)
            second[i] = 2 * i;
    }
    long nowait_sum = 0;
    for (int i = 0; i < N; i++)
        nowait_sum += first[i] + second[i];
    failures += check("nowait loops", nowait_sum, 3 * expected_sum);

    /* lastprivate: the value of the sequentially last iteration. */
    int last_square = -1;
#pragma omp parallel
#pragma omp for lastprivate(last_square)
    for (int i = 0; i < N; i++)
        last_square = i * i;
    failures += check("lastprivate", last_square, (long)(N - 1) * (N - 1));

    /* lastprivate(conditional:): the last iteration that assigned it. */
    int last_multiple_of_7 = -1;
#pragma omp parallel
    {
#pragma omp for lastprivate(conditional : last_multiple_of_7)
        for (int i = 0; i < N; i++)
            if (i % 7 == 0)
                last_multiple_of_7 = i;
    }
    failures += check("lastprivate(conditional:)", last_multiple_of_7, 196);

    /* linear: j advances by 3 per iteration. */
    int j = 5;
    static int linear_values[N];
#pragma omp parallel
    {
#pragma omp for linear(j : 3)
        for (int i = 0; i < N; i++) {
            linear_values[i] = j;
            j += 3;
        }
    }
    int linear_ok = 1;
    for (int i = 0; i < N; i++)
        linear_ok &= linear_values[i] == 5 + 3 * i;
    failures += check("linear values", linear_ok, 1);
    failures += check("linear final", j, 5 + 3 * N);

    /* inscan reductions: prefix sums. */
    static long input[N], inclusive[N], exclusive[N];
    for (int i = 0; i < N; i++)
        input[i] = i % 13 + 1;
    long running = 0;
#pragma omp parallel
    {
#pragma omp for reduction(inscan, + : running)
        for (int i = 0; i < N; i++) {
            running += input[i];
#pragma omp scan inclusive(running)
            inclusive[i] = running;
        }
    }
    long before = 0;
#pragma omp parallel for reduction(inscan, + : before)
    for (int i = 0; i < N; i++) {
        exclusive[i] = before;
#pragma omp scan exclusive(before)
        before += input[i];
    }
    int scans_ok = 1;
    long prefix = 0;
    for (int i = 0; i < N; i++) {
        scans_ok &= exclusive[i] == prefix;
        prefix += input[i];
        scans_ok &= inclusive[i] == prefix;
    }
    failures += check("scan prefixes", scans_ok, 1);
    failures += check("scan total", running, prefix);

    if (failures)
        return 1;
    printf("worksharing_for: ok\n");
    return 0;
}
