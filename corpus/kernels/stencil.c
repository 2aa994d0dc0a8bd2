/* 2D Jacobi iteration for Laplace's equation on a square with fixed
 * boundary values, with a parallel for over rows and a max-reduction of the
 * change per sweep. The result is checked against a sequential run, which
 * must agree exactly: every point's update depends only on the previous
 * sweep, so the order of the updates cannot change a single bit. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#define SIZE 64
#define MAX_SWEEPS 6000
#define TOLERANCE 1e-4

static double grid_a[SIZE][SIZE], grid_b[SIZE][SIZE];
static double check_a[SIZE][SIZE], check_b[SIZE][SIZE];

static void set_boundary(double grid[SIZE][SIZE])
{
    memset(grid, 0, sizeof(double) * SIZE * SIZE);
    for (int k = 0; k < SIZE; k++) {
        grid[0][k] = 1.0;                     /* hot top edge */
        grid[SIZE - 1][k] = 0.0;              /* cold bottom edge */
        grid[k][0] = grid[k][SIZE - 1] = 0.5; /* warm sides */
    }
}

static int solve(double (*current)[SIZE], double (*next)[SIZE], int parallel, double *final_change)
{
    memcpy(next, current, sizeof(double) * SIZE * SIZE);
    for (int sweep = 1; sweep <= MAX_SWEEPS; sweep++) {
        double change = 0.0;
#pragma omp parallel for reduction(max : change) schedule(static) if (parallel)
        for (int i = 1; i < SIZE - 1; i++)
            for (int j = 1; j < SIZE - 1; j++) {
                next[i][j] = 0.25 * (current[i - 1][j] + current[i + 1][j] + current[i][j - 1] +
                                     current[i][j + 1]);
                double delta = fabs(next[i][j] - current[i][j]);
                if (delta > change)
                    change = delta;
            }
        double (*swap)[SIZE] = current;
        current = next;
        next = swap;
        if (change < TOLERANCE) {
            *final_change = change;
            return sweep;
        }
    }
    *final_change = -1;
    return MAX_SWEEPS;
}

int main(void)
{
    set_boundary(grid_a);
    set_boundary(check_a);
    double change, check_change;
    int sweeps = solve(grid_a, grid_b, 1, &change);
    int check_sweeps = solve(check_a, check_b, 0, &check_change);
    /* After an odd number of sweeps the newest values are in the second grid. */
    double (*result)[SIZE] = sweeps % 2 ? grid_b : grid_a;
    double (*expected)[SIZE] = check_sweeps % 2 ? check_b : check_a;
    int identical = memcmp(result, expected, sizeof grid_a) == 0;
    double centre = result[SIZE / 2][SIZE / 2];
    printf("sweeps %d, centre %.6f, identical to sequential %d\n", sweeps, centre, identical);
    if (!identical || sweeps != check_sweeps || change != check_change || change < 0) {
        printf("FAILED\n");
        return 1;
    }
    printf("stencil: ok\n");
    return 0;
}
