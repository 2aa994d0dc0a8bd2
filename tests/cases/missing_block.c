void f(void) {
#pragma omp parallel
}
