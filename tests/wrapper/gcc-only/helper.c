void helper(int *x)
{
#pragma omp atomic
    (*x)++;
}
