void work(int);
void f(int *a) {
#pragma omp target map(tofrom: a[0:4])
#pragma omp parallel
    work(a[0]);
#pragma omp taskgraph
#pragma omp task
    work(1);
}
