/* parallel with if(), num_threads(), default(none) with data-sharing
 * clauses, reduction, and copyin of a threadprivate variable. */
#include <omp.h>
#include <stdio.h>

static int seed = 0;
#pragma omp threadprivate(seed)

int main(void)
{
    int failures = 0;
    int n = 1000;
    long sum = 0;

    /* if(0): a team of one, whatever OMP_NUM_THREADS says. */
    int team_size = 0;
#pragma omp parallel if (n < 10)
    {
#pragma omp atomic
        team_size++;
    }
    printf("if(false) team size: %d\n", team_size);
    failures += team_size != 1;

    /* num_threads(3): a team of at most 3 threads shares the 30 iterations. */
    int iterations = 0, oversized_teams = 0;
#pragma omp parallel num_threads(3) reduction(+ : iterations, oversized_teams)
    {
        oversized_teams += omp_get_num_threads() > 3;
#pragma omp for
        for (int i = 0; i < 30; i++)
            iterations++;
    }
    printf("num_threads work: %d\n", iterations);
    failures += iterations != 30 || oversized_teams != 0;

    int offset = 7, scratch = -1;
#pragma omp parallel default(none) shared(n, sum) private(scratch) firstprivate(offset)
    {
        scratch = offset * 2;
        long local = 0;
#pragma omp for
        for (int i = 0; i < n; i++)
            local += i + scratch - 2 * offset;
#pragma omp atomic
        sum += local;
    }
    printf("default(none) sum: %ld\n", sum);
    failures += sum != (long)n * (n - 1) / 2;

    long product_terms = 0;
#pragma omp parallel reduction(+ : product_terms)
    product_terms += 2;
    printf("reduction even: %d\n", (int)(product_terms % 2 == 0 && product_terms >= 2));

    seed = 41;
    int mismatched = 0;
#pragma omp parallel copyin(seed) reduction(+ : mismatched)
    {
        mismatched += seed != 41;
        seed++;
    }
    printf("copyin mismatches: %d\n", mismatched);
    failures += mismatched != 0;

    if (failures) {
        printf("FAILED: %d checks\n", failures);
        return 1;
    }
    printf("parallel_clauses: ok\n");
    return 0;
}
