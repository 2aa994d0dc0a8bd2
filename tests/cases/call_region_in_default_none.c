/* A call measured as a region inside constructs with default(none): its
   handle is listed shared, as a construct's is. */
void work(int i);

void s(int n)
{
    #pragma omp parallel default(none) shared(n)
    {
        #pragma omp task default(none) firstprivate(n)
        work(n);
    }
}
