/* A region written with macros that open and close its block, as
   molecular dynamics codes write them: each thread takes a chunk. */
#define CHUNK_SETUP(num)                                     \
  {                                                          \
    const int tid = omp_get_thread_num();                    \
    const int delta = 1 + (num) / omp_get_num_threads();     \
    const int from = tid * delta;                            \
    const int to = (from + delta > (num)) ? (num) : from + delta;
#define CHUNK_CLOSE }
