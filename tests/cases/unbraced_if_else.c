void work(int);
void f(int c, int n) {
  int i;
  if (c)
#pragma omp parallel for
    for (i = 0; i < n; i++) work(i);
  else
#pragma omp parallel
    work(-1);
}
