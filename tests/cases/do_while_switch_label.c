void work(int);
void f(int n) {
#pragma omp parallel
  do { work(n); } while (--n > 0);
#pragma omp parallel
  switch (n) { case 0: work(0); break; default: work(1); }
#pragma omp parallel
  again: work(2);
}
