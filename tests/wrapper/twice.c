#include <cstdio>
template <typename T> T twice(T x) { return 2 * x; }
int main() {
  int sum = 0;
#pragma omp parallel for reduction(+:sum)
  for (int i = 0; i < 8; i++) sum += twice(i);
std::printf("%d\n", sum);
  return 0;
}
