void f(int n, double *a) {
  double s = 0, last = 0;
  int i;
#pragma omp parallel for simd default(none) shared(a, n) reduction(+:s) \
        lastprivate(conditional: last) if(parallel: n > 100) num_threads(4) \
        schedule(static) collapse(1)
  for (i = 0; i < n; i++) { s += a[i]; if (a[i] > 0) last = a[i]; }
}
