void f(void) {
#pragma omp paralel
  { }
}
