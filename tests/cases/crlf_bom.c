void w(int);
void f(void) {
#pragma omp parallel
  w(1);
}
