/* Compute kernel: Jacobi 5-point stencil on an N x N grid, one parallel
 * loop per sweep. Prints the time of the sweeps and a checksum. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2048;
    int sweeps = argc > 2 ? atoi(argv[2]) : 100;
    double *a = malloc(sizeof(double) * n * n);
    double *b = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n * n; i++) a[i] = b[i] = (i % n == 0) ? 1.0 : 0.0;
    double start = omp_get_wtime();
    for (int s = 0; s < sweeps; s++) {
#pragma omp parallel for
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] +
                                       a[i * n + j - 1] + a[i * n + j + 1]);
        double *t = a; a = b; b = t;
    }
    double seconds = omp_get_wtime() - start;
    double checksum = 0;
    for (int i = 0; i < n * n; i++) checksum += a[i];
    printf("seconds=%.6f checksum=%.6f\n", seconds, checksum);
    free(a);
    free(b);
    return 0;
}
