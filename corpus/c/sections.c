/* sections with and without the optional first section directive, parallel
 * sections, and lastprivate on sections. */
#include <stdio.h>

static int work(int k) { return k * k + 1; }

int main(void)
{
    int failures = 0;
    int r1 = 0, r2 = 0, r3 = 0;
#pragma omp parallel shared(r1, r2, r3)
    {
#pragma omp sections
        {
#pragma omp section
            r1 = work(1);
#pragma omp section
            r2 = work(2);
#pragma omp section
            {
                r3 = work(3);
            }
        }
    }
    printf("sections: %d %d %d\n", r1, r2, r3);
    failures += r1 != 2 || r2 != 5 || r3 != 10;

    /* The first section directive is optional. */
    int s1 = 0, s2 = 0;
#pragma omp parallel
    {
#pragma omp sections nowait
        {
            s1 = work(4);
#pragma omp section
            s2 = work(5);
        }
#pragma omp barrier
    }
    printf("implicit first section: %d %d\n", s1, s2);
    failures += s1 != 17 || s2 != 26;

    int p1 = 0, p2 = 0, which = 0;
#pragma omp parallel sections lastprivate(which)
    {
        {
            p1 = work(6);
            which = 1;
        }
#pragma omp section
        {
            p2 = work(7);
            which = 2;
        }
    }
    printf("parallel sections: %d %d, last section %d\n", p1, p2, which);
    failures += p1 != 37 || p2 != 50 || which != 2;

    if (failures) {
        printf("FAILED\n");
        return 1;
    }
    printf("sections: ok\n");
    return 0;
}
