void work(int);
void f(void) {
#pragma omp parallel sections
  {
    work(1);
#pragma omp section
    work(2);
  }
#pragma omp parallel
#pragma omp single
  {
#pragma omp task untied if(task: 1)
    work(3);
#pragma omp taskwait
  }
}
