#define _noalias __restrict
void work(double *);
void f(double *a, int n) {
#pragma omp parallel
  {
    double * _noalias const p = a;
#pragma omp for
    for (int i = 0; i < n; i++) {
      double * _noalias q = p + i;
      work(q);
    }
  }
}
