/* The C library's math functions inside an OpenMP program. The first
 * arguments are ones where the cube root of Rust's compiler builtins and
 * glibc's differ in their last bits: a measurement library that let its
 * own definitions take the place of the C library's would change what
 * this program prints. C++, because g++ links the math library after
 * every object and archive of the command line, the measurement library
 * included, as a C++ application's build does. */
#include <cmath>
#include <cstdio>

static const double arguments[] = {
    0x1.767bb0ba53354p+7, 0x1.bd620d08e32f1p+9, 0x1.c41c7bd55714dp+9,
    -2.5, 0.1, 1e-300, 7.5, 123456.789,
};
#define COUNT (sizeof arguments / sizeof arguments[0])

int main(void) {
    double results[COUNT][9];
#pragma omp parallel for
    for (int i = 0; i < (int)COUNT; i++) {
        double x = arguments[i];
        results[i][0] = cbrt(x);
        results[i][1] = sqrt(fabs(x));
        results[i][2] = fmod(x, 0.7);
        results[i][3] = fmin(x, 1.0);
        results[i][4] = fmax(x, 1.0);
        results[i][5] = floor(x * 3.3);
        results[i][6] = ceil(x * 3.3);
        results[i][7] = round(x * 3.3);
        results[i][8] = trunc(x * 3.3);
    }
    for (unsigned i = 0; i < COUNT; i++) {
        printf("%a:", arguments[i]);
        for (int k = 0; k < 9; k++)
            printf(" %a", results[i][k]);
        printf("\n");
    }
    return 0;
}
