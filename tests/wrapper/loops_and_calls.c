#include <stdio.h>
static int sent;
int MPI_Send(int n) { sent += n; return 0; }
int MPI_Barrier(void) { return 0; }
int main(void)
{
int total = 0;
for (int i = 0; i < 5; i++) {
MPI_Send(i);
int rc = MPI_Barrier();
total += rc;
#pragma omp parallel
{
#pragma omp atomic
total++;
}
}
for (int k = 0; k < 3; k++)
MPI_Barrier();
MPI_Barrier();
printf("sent %d positive %d\n", sent, total > 0);
return 0;
}
