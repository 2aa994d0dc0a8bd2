/* Tasks: tied, untied, if(), depend, final, mergeable, recursion with
 * taskwait, taskgroup and taskyield, and a default(none) task around a
 * critical section. */
#include <omp.h>
#include <stdio.h>

static long fib(int n)
{
    if (n < 2)
        return n;
    long x, y;
#pragma omp task shared(x) firstprivate(n)
    x = fib(n - 1);
#pragma omp task shared(y) firstprivate(n)
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

int main(void)
{
    int failures = 0;

    long fib_result = 0;
#pragma omp parallel
    {
#pragma omp single
        fib_result = fib(15);
    }
    printf("fib(15) = %ld\n", fib_result);
    failures += fib_result != 610;

    int tied = 0, untied = 0, undeferred = 0, finals = 0, merged = 0;
#pragma omp parallel
    {
#pragma omp single
        {
            for (int i = 0; i < 20; i++) {
#pragma omp task
                {
#pragma omp atomic
                    tied++;
                }
#pragma omp task untied
                {
#pragma omp taskyield
#pragma omp atomic
                    untied++;
                }
#pragma omp task if (i % 2 == 0)
                {
#pragma omp atomic
                    undeferred++;
                }
#pragma omp task final(i > 10)
                {
#pragma omp task
                    {
#pragma omp atomic
                        finals++;
                    }
                }
#pragma omp task mergeable
                {
#pragma omp atomic
                    merged++;
                }
            }
#pragma omp taskwait
        }
    }
    printf("tasks: tied %d untied %d if %d final %d mergeable %d\n", tied, untied, undeferred,
           finals, merged);
    failures += tied != 20 || untied != 20 || undeferred != 20 || finals != 20 || merged != 20;

    /* depend: a chain of tasks that must run in order. */
    int stage = 0, chain_ok = 1;
#pragma omp parallel shared(stage, chain_ok)
#pragma omp single
    {
        for (int k = 1; k <= 10; k++) {
#pragma omp task depend(inout : stage) firstprivate(k)
            {
                if (stage != k - 1)
                    chain_ok = 0;
                stage = k;
            }
        }
        int observed = -1;
#pragma omp task depend(in : stage) shared(observed)
        observed = stage;
#pragma omp taskwait
        chain_ok &= observed == 10;
    }
    printf("depend chain: stage %d ok %d\n", stage, chain_ok);
    failures += stage != 10 || !chain_ok;

    /* taskgroup waits for descendants too, not only children. */
    int descendants = 0;
#pragma omp parallel
    {
#pragma omp single
        {
#pragma omp taskgroup
            {
                for (int i = 0; i < 5; i++) {
#pragma omp task
                    {
#pragma omp task
                        {
#pragma omp atomic
                            descendants++;
                        }
#pragma omp atomic
                        descendants++;
                    }
                }
            }
            printf("taskgroup descendants: %d\n", descendants);
            failures += descendants != 10;
        }
    }

    /* default(none) on a task whose body holds an instrumented construct:
     * the construct's handle must be shared, whether the task itself is
     * instrumented or not. */
    long guarded = 0;
#pragma omp parallel
#pragma omp single
    for (int i = 1; i <= 20; i++) {
#pragma omp task default(none) shared(guarded) firstprivate(i)
        {
#pragma omp critical(guarded_sum)
            guarded += i;
        }
    }
    printf("default(none) task sum: %ld\n", guarded);
    failures += guarded != 210;

    if (failures) {
        printf("FAILED\n");
        return 1;
    }
    printf("tasks: ok\n");
    return 0;
}
