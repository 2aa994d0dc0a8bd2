void work(int);
double a[64];
void f(int n) {
#pragma omp parallel for
#pragma omp tile sizes(4) apply(intratile: unroll partial(2) apply(reverse))
    for (int i = 0; i < 64; i++)
        work(i);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(strict: 4) nogroup
    for (int i = 1; i < 64; i++) {
#pragma omp task_iteration depend(inout: a[i]) depend(in: a[i - 1])
        a[i] += a[i - 1];
    }
#pragma omp interchange permutation(2, 1)
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            work(i * j);
#pragma omp fuse looprange(1, 2)
    {
        for (int i = 0; i < n; i++)
            work(i);
        for (int j = 0; j < n; j++)
            work(-j);
    }
#pragma omp split counts(4, omp_fill)
    for (int i = 0; i < n; i++)
        work(i);
#pragma omp stripe sizes(2)
    for (int i = 0; i < n; i++)
        work(i);
#pragma omp taskgraph graph_id(1)
    {
#pragma omp task
        work(2);
    }
#pragma omp target_data map(tofrom: a)
    work(3);
#pragma omp parallel
    {
#pragma omp cancellation_point parallel
        work(4);
    }
}
#pragma omp groupprivate(a) device_type(nohost)
#pragma omp declare_target enter(f)
