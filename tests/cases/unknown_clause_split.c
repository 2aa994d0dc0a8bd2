void f(int n, int *a) {
#pragma omp masked taskloop ompx_bare(1)
    for (int i = 0; i < n; i++)
        a[i] = i;
}
