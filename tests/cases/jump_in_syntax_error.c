#define _noalias __restrict
int f(double *a, int n) {
#pragma omp parallel
  {
    double * _noalias p = a;
    p[0] = _noalias 1 return;
  }
  return 0;
}
