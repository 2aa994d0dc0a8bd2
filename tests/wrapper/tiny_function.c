#include <stdio.h>
static double step(double x) { return x * 0.5 + 1.0; }
static double sweep(int n)
{
double sum = 0;
#pragma omp parallel for reduction(+ : sum)
for (int i = 0; i < n; ++i)
sum += step(i);
return sum;
}
int main(void)
{
double total = 0;
for (int k = 0; k < 4; ++k)
total += sweep(100000);
printf("%.1f\n", total);
return 0;
}
