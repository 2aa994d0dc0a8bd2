/* _noalias: a restrict macro from a header, unknown to the grammar */
int f(double *a, int n) {
#pragma pomp inst begin(guarded)
#pragma omp parallel
  {
    double * _noalias p = a;
    p[0] = _noalias 1 return;
  }
#pragma pomp inst end(guarded)
  return 0;
}
