void w(int);
void f(int n) {
#pragma omp parallel
  {
#pragma omp for
#pragma omp fuse_sequence
    {
      for (int i = 0; i < n; i++) w(i);
      for (int j = 0; j < n; j++) w(j);
    }
  }
}
