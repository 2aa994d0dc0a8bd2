void work(int);
void f(int n) {
#pragma omp parallel num_threads(n) ompx_attribute(__attribute__((launch_bounds(128))))
    work(0);
#pragma omp tile sizes(4) depth(1)
    for (int i = 0; i < n; i++)
        work(i);
#pragma omp task vendor_affinity(core: 3) if(n > 2)
    work(1);
}
