void f(int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++ { }
}
