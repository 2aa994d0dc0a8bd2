/* stencil.c instrumented for POMP2 as `pomp instrument` does by default:
 * the combined parallel for keeps its loop's nowait, and the parallel
 * region's closing barrier, which ends the loop too, stays implicit
 * (pompImplicitBarrier=inferred). */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *POMP2_Region_handle;
typedef int64_t POMP2_Task_handle;
void POMP2_Assign_handle(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Parallel_fork(POMP2_Region_handle *h, int if_clause, int num_threads,
                         POMP2_Task_handle *old_task, const char ctc[]);
void POMP2_Parallel_begin(POMP2_Region_handle *h);
void POMP2_Parallel_end(POMP2_Region_handle *h);
void POMP2_Parallel_join(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_For_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_For_exit(POMP2_Region_handle *h);

static POMP2_Region_handle pomp2_region_1 = NULL;
static const char pomp2_ctc_1[] = "113*regionType=parallelfor*sscl=stencil.c:15:15*escl=stencil.c:19:19*pompUnit=main*pompImplicitBarrier=inferred**";

void POMP2_Init_reg_stencil_c(void) { POMP2_Assign_handle(&pomp2_region_1, pomp2_ctc_1); }
void POMP2_Init_regions(void) { POMP2_Init_reg_stencil_c(); }
size_t POMP2_Get_num_regions(void) { return 1; }
const char *POMP2_Get_opari2_version(void) { return "pomp-bench"; }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2048;
    int sweeps = argc > 2 ? atoi(argv[2]) : 100;
    double *a = malloc(sizeof(double) * n * n);
    double *b = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n * n; i++) a[i] = b[i] = (i % n == 0) ? 1.0 : 0.0;
    double start = omp_get_wtime();
    for (int s = 0; s < sweeps; s++) {
        { int pomp2_num_threads = omp_get_max_threads(); int pomp2_if = 1;
          POMP2_Task_handle pomp2_old_task;
          POMP2_Parallel_fork(&pomp2_region_1, pomp2_if, pomp2_num_threads, &pomp2_old_task, pomp2_ctc_1);
#pragma omp parallel firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads) shared(a, b, n)
          { POMP2_Parallel_begin(&pomp2_region_1);
            POMP2_For_enter(&pomp2_region_1, pomp2_ctc_1);
#pragma omp for nowait
            for (int i = 1; i < n - 1; i++)
                for (int j = 1; j < n - 1; j++)
                    b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] +
                                           a[i * n + j - 1] + a[i * n + j + 1]);
            POMP2_For_exit(&pomp2_region_1);
            POMP2_Parallel_end(&pomp2_region_1); }
          POMP2_Parallel_join(&pomp2_region_1, pomp2_old_task); }
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
