#define CHUNK_SETUP(num) { int from = 0, to = (num);
#define CHUNK_CLOSE }
void work(int, int);
void f(int n) {
#pragma omp parallel
  CHUNK_SETUP(n);
  work(from, to);
  CHUNK_CLOSE;
}
