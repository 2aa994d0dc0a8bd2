void work(void);
void f(int n) {
#pragma omp parallel num_threads(strict: n + 1, 2) severity(warning)
    work();
}
