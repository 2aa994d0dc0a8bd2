// The C++ attribute form of directives: [[omp::sequence(...)]] holds
// several directives, which apply to the statement in the order written;
// [[using omp: ...]] spares the namespace; [[omp::decl(...)]] belongs to a
// declaration (gcc 12 ignores it, with a warning).
#include <cstdio>

static int calls [[omp::decl(threadprivate)]];

int main()
{
    int failures = 0;
    long sum = 0;
    [[omp::sequence(directive(parallel num_threads(3)), directive(for reduction(+ : sum)))]]
    for (int i = 0; i < 100; ++i)
        sum += i;
    std::printf("sequence of parallel and for: %ld\n", sum);
    failures += sum != 4950;

    int singles = 0;
    [[using omp : directive(parallel)]]
    {
        [[omp::sequence(omp::directive(single), directive(critical))]]
        singles++;
    }
    std::printf("sequence of single and critical: %d\n", singles);
    failures += singles != 1;

    long tasks = 0;
    [[omp::sequence(directive(parallel), sequence(directive(single), directive(taskgroup)))]]
    {
        for (int i = 0; i < 8; ++i) {
            [[omp::directive(task shared(tasks))]]
            {
                [[omp::directive(atomic)]]
                tasks += i;
            }
        }
    }
    std::printf("nested sequence with tasks: %ld\n", tasks);
    failures += tasks != 28;

    calls += 1;
    if (failures) {
        std::printf("FAILED\n");
        return 1;
    }
    std::printf("attribute_sequence: ok (%d)\n", calls);
    return 0;
}
