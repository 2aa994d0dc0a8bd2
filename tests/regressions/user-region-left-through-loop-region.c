/* pomp failed (fixed): pomp2 violation: End (userRegion) closes Begin (userRegion) in task N: improper nesting; found by the program generator (c seed 355261); check with --interface pomp2 */
/* pomp regions: functions,loops,calls=helper* */
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
omp_lock_t lk;
omp_nest_lock_t nlk;
#endif
long long g0, g1, g2, g3;
static void helper0(int i1, int i2);
static void helper0(int i1, int i2)
{
    long long t = 0;
    (void)t;
    #pragma pomp inst begin(region1)
    for (int i3 = 0; i3 < 1; i3++)
        return;
    #pragma pomp inst end(region1)
}
static long long kernel0(int n)
{
    long long r0 = 0, r1 = 0, lp = 0, t = 0, fp = 7, lin = 3;
    long long a[512] = {0};
    (void)t; (void)fp; (void)n;
    for (int i1 = 0; i1 < 1; i1++)
        for (int i2 = 0; i2 < 1; i2++)
            helper0(i1, i2);
    {
        long long sum = 3 * r0 + 5 * r1 + 11 * lp + 13 * lin;
        for (int k = 0; k < 512; k++) sum += a[k] * (k % 7 + 1);
        return sum;
    }
}
int main(void)
{
    omp_init_lock(&lk);
    omp_init_nest_lock(&nlk);
    printf("kernel0 %lld\n", kernel0(5));
    printf("globals %lld %lld %lld %lld\n", g0, g1, g2, g3);
    omp_destroy_lock(&lk);
    omp_destroy_nest_lock(&nlk);
    return 0;
}
