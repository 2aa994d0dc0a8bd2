/* libomp fails, uninstrumented too: kernel1's linear variable comes back wrong in about half the runs with 2 threads, one in fifteen with 3; found by the program generator (c seed 304224) as output of the instrumented program linked with pomp's runtime that differs; check with --interface pomp2 */
/* pomp input: preprocessed */
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
omp_lock_t lk;
omp_nest_lock_t nlk;
#endif
long long g0, g1, g2, g3;
static long long kernel0(int n)
{
    long long r0 = 0, r1 = 0, lp = 0, t = 0, fp = 7, lin = 3;
    long long a[512] = {0};
    (void)t; (void)fp; (void)n;
    if (n > 6)
    {
    }
    a[(470)] += (3 * n + 3 * n + 6);
    {
        long long sum = 3 * r0 + 5 * r1 + 11 * lp + 13 * lin;
        for (int k = 0; k < 512; k++) sum += a[k] * (k % 7 + 1);
        return sum;
    }
}
static long long kernel1(int n)
{
    long long r0 = 0, r1 = 0, lp = 0, t = 0, fp = 7, lin = 3;
    long long a[512] = {0};
    (void)t; (void)fp; (void)n;
    for (int i1 = 0; i1 < 2; i1++)
        #pragma omp parallel if(parallel: i1 < 2) proc_bind(spread) firstprivate(fp) reduction(+:r1)
        {
            for (int i2 = 0; i2 < 4; i2++)
                for (int i3 = 0; i3 < 3; i3++)
                {
                    #pragma omp single nowait
                    {
                        r1 += (3 * i3 + 3 * n + 5);
                        #pragma omp taskwait
                    }
                    #pragma omp single
                    {
                        if (i2 < 4)
                            goto L2;
                        r1 += (4);
                        r1 += (2);
L2:;
                    }
                    for (int i4 = 0; i4 < 4; i4++)
                    {
                        #pragma omp barrier
                        #pragma omp taskwait
                        #pragma omp flush
                    }
                }
            #pragma omp for schedule(dynamic, 2) private(t) linear(lin:3)
            for (int i2 = 0; i2 < 7; i2++)
            {
                lin += (3);
                #pragma omp atomic
                g0 += (4 * i2 + 4 * i2 + 6);
            }
        }
    {
        long long sum = 3 * r0 + 5 * r1 + 11 * lp + 13 * lin;
        for (int k = 0; k < 512; k++) sum += a[k] * (k % 7 + 1);
        return sum;
    }
}
static long long kernel2(int n)
{
    long long r0 = 0, r1 = 0, lp = 0, t = 0, fp = 7, lin = 3;
    long long a[512] = {0};
    (void)t; (void)fp; (void)n;
    #pragma omp parallel num_threads(2) firstprivate(fp) default(shared)
    {
        #pragma omp taskgroup
        {
            #pragma omp barrier
        }
        #pragma omp taskgroup
            if (n > 7)
            {
                #pragma omp taskyield
                if (n > 7)
                    #pragma omp single
                    {
                        r0 += (1 * n + 3 * n + 7);
                        #pragma omp taskwait
                    }
            }
    }
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
    printf("kernel1 %lld\n", kernel1(5));
    printf("kernel2 %lld\n", kernel2(5));
    printf("globals %lld %lld %lld %lld\n", g0, g1, g2, g3);
    omp_destroy_lock(&lk);
    omp_destroy_nest_lock(&nlk);
    return 0;
}
