/* teams on the host with distribute, and target regions, which without an
 * offload device run on the host. */
#include <stdio.h>

#define N 256

int main(void)
{
    int failures = 0;
    static int data[N];

    long distributed = 0;
#pragma omp teams num_teams(3) reduction(+ : distributed)
    {
#pragma omp distribute
        for (int i = 0; i < N; i++) {
            data[i] = i;
            distributed += i;
        }
    }
    printf("teams distribute sum: %ld\n", distributed);
    failures += distributed != (long)N * (N - 1) / 2;

    long combined = 0;
#pragma omp teams distribute parallel for reduction(+ : combined)
    for (int i = 0; i < N; i++)
        combined += data[i];
    printf("teams distribute parallel for sum: %ld\n", combined);
    failures += combined != distributed;

    int doubled[N];
    long offloaded = 0;
#pragma omp target map(to : data) map(from : doubled)
    {
        for (int i = 0; i < N; i++)
            doubled[i] = 2 * data[i];
    }
#pragma omp target teams distribute parallel for map(to : doubled) reduction(+ : offloaded)
    for (int i = 0; i < N; i++)
        offloaded += doubled[i];
    printf("target sum: %ld\n", offloaded);
    failures += offloaded != 2 * distributed;

    int scalar = 1;
#pragma omp target data map(tofrom : scalar)
    {
#pragma omp target map(tofrom : scalar)
        scalar += 41;
    }
    printf("target data: %d\n", scalar);
    failures += scalar != 42;

    if (failures) {
        printf("FAILED\n");
        return 1;
    }
    printf("teams_target: ok\n");
    return 0;
}
