/* A loop region ends where the constructs of its body end, and closes
   after them; a call region that is a construct's block opens after the
   construct's code and closes before it, at any depth. */
void work(int i);

void around(int n)
{
    for (int i = 0; i < n; i++)
        #pragma omp parallel
        work(i);
    for (int i = 0; i < n; i++)
        #pragma omp parallel for
        for (int j = 0; j < n; j++)
            #pragma omp critical
            work(j);
    for (int i = 0; i < n; i++) work(i);for (int i = 0; i < n; i++) work(i);
#pragma omp parallel
#pragma omp single
#pragma omp task
work(n);
}
