/*
 * kernels.c -- a bundle of small numerical kernels used as a benchmark
 * driver: structured-grid stencils, CSR sparse matrix-vector products and a
 * conjugate-gradient solve built on them, reductions, an atomic histogram,
 * a recursive task-parallel quadrature and a three-stage pipeline.
 *
 * Build:   cc -std=c11 -O2 -fopenmp kernels.c -lm
 * Run:     ./a.out [grid-edge] [repetitions]
 */

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#define KB_THREAD_ID() omp_get_thread_num()
#define KB_NUM_THREADS() omp_get_max_threads()
#define KB_TEAM_SIZE() omp_get_num_threads()
#define KB_NOW() omp_get_wtime()
#else
#define KB_THREAD_ID() 0
#define KB_NUM_THREADS() 1
#define KB_TEAM_SIZE() 1
#define KB_NOW() ((double)clock() / CLOCKS_PER_SEC)
#endif

#define KB_DEFAULT_EDGE 192
#define KB_DEFAULT_REPS 20
#define KB_HIST_BINS 64
#define KB_PIPE_DEPTH 8
#define KB_QUAD_CUTOFF 1.0e-3
#define KB_ALIGN 64

#define IDX2(i, j, ld) ((size_t)(i) * (size_t)(ld) + (size_t)(j))
#define IDX3(i, j, k, nj, nk) \
  (((size_t)(i) * (size_t)(nj) + (size_t)(j)) * (size_t)(nk) + (size_t)(k))
#define SQUARE(x) ((x) * (x))
#define KB_UNUSED(x) (void)(x)
#define KB_CHECK_ALLOC(p)                                                 \
  do {                                                                    \
    if ((p) == NULL) {                                                    \
      fprintf(stderr, "%s:%d: out of memory\n", __FILE__, __LINE__);      \
      exit(EXIT_FAILURE);                                                 \
    }                                                                     \
  } while (0)

_Static_assert(KB_HIST_BINS > 0 && (KB_HIST_BINS & (KB_HIST_BINS - 1)) == 0,
               "histogram bin count must be a power of two");

typedef double real_t;
typedef int32_t idx_t;

typedef struct {
  int nx, ny;
  real_t h;
  real_t *u;     /* current iterate, (nx+2) x (ny+2) with a halo */
  real_t *unew;  /* next iterate */
  real_t *rhs;
} grid2d_t;

typedef struct {
  idx_t nrows;
  idx_t ncols;
  idx_t nnz;
  idx_t *rowptr;
  idx_t *colind;
  real_t *val;
} csr_t;

typedef struct {
  double seconds;
  double bytes;
  long calls;
  const char *name;
} kernel_timer_t;

typedef enum { STAGE_READ = 0, STAGE_FILTER, STAGE_WRITE, STAGE_COUNT } stage_t;

typedef struct block {
  int id;
  int len;
  real_t data[256];
  struct block *next;
} block_t;

/* Per-thread counter of stencil sweeps, reported at the end. */
static long sweeps_done = 0;
#pragma omp threadprivate(sweeps_done)

static kernel_timer_t timers[] = {
    {0.0, 0.0, 0, "jacobi2d"}, {0.0, 0.0, 0, "heat3d"},
    {0.0, 0.0, 0, "spmv"},     {0.0, 0.0, 0, "cg"},
    {0.0, 0.0, 0, "histogram"}, {0.0, 0.0, 0, "quadrature"},
    {0.0, 0.0, 0, "pipeline"},
};
enum { T_JACOBI, T_HEAT, T_SPMV, T_CG, T_HIST, T_QUAD, T_PIPE, T_COUNT };

static void *aligned_calloc(size_t count, size_t size) {
  void *p = NULL;
  size_t bytes = count * size;
  if (bytes % KB_ALIGN) bytes += KB_ALIGN - bytes % KB_ALIGN;
  p = aligned_alloc(KB_ALIGN, bytes);
  KB_CHECK_ALLOC(p);
  memset(p, 0, bytes);
  return p;
}

static inline void timer_add(int which, double t0, double bytes) {
  timers[which].seconds += KB_NOW() - t0;
  timers[which].bytes += bytes;
  timers[which].calls++;
}

/* ------------------------------------------------------------------------ */
/* 2-D Jacobi sweep for -lap(u) = f on the unit square                       */
/* ------------------------------------------------------------------------ */

static void grid_init(grid2d_t *g, int nx, int ny) {
  const size_t n = (size_t)(nx + 2) * (size_t)(ny + 2);
  g->nx = nx;
  g->ny = ny;
  g->h = 1.0 / (nx + 1);
  g->u = aligned_calloc(n, sizeof(real_t));
  g->unew = aligned_calloc(n, sizeof(real_t));
  g->rhs = aligned_calloc(n, sizeof(real_t));

#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 1; i <= nx; i++) {
    for (int j = 1; j <= ny; j++) {
      const real_t x = i * g->h, y = j * g->h;
      g->rhs[IDX2(i, j, ny + 2)] = 2.0 * (x * (1.0 - x) + y * (1.0 - y));
    }
  }
}

static void grid_free(grid2d_t *g) {
  free(g->u);
  free(g->unew);
  free(g->rhs);
  memset(g, 0, sizeof *g);
}

static real_t jacobi_sweep(grid2d_t *g) {
  const int nx = g->nx, ny = g->ny, ld = ny + 2;
  const real_t h2 = g->h * g->h;
  const real_t *restrict u = g->u;
  const real_t *restrict f = g->rhs;
  real_t *restrict un = g->unew;
  real_t resid = 0.0;

#pragma omp parallel for reduction(+ : resid) schedule(static)
  for (int i = 1; i <= nx; i++) {
    const real_t *up = u + (size_t)(i - 1) * ld;
    const real_t *uc = u + (size_t)i * ld;
    const real_t *dn = u + (size_t)(i + 1) * ld;
    real_t *out = un + (size_t)i * ld;
#pragma omp simd reduction(+ : resid)
    for (int j = 1; j <= ny; j++) {
      const real_t v = 0.25 * (up[j] + dn[j] + uc[j - 1] + uc[j + 1] + h2 * f[IDX2(i, j, ld)]);
      resid += SQUARE(v - uc[j]);
      out[j] = v;
    }
  }
  sweeps_done++;

  /* swap the buffers rather than copying */
  real_t *tmp = g->u;
  g->u = g->unew;
  g->unew = tmp;
  return sqrt(resid);
}

static int jacobi_solve(grid2d_t *g, int maxit, real_t tol) {
  int it;
  real_t r = 0.0;
  double t0 = KB_NOW();

  for (it = 0; it < maxit; it++) {
    r = jacobi_sweep(g);
    if (r < tol) break;
  }
  timer_add(T_JACOBI, t0, (double)it * 4.0 * sizeof(real_t) * g->nx * g->ny);
  printf("jacobi: %d sweeps, residual %.3e\n", it, r);
  return it;
}

/* ------------------------------------------------------------------------ */
/* 3-D seven-point heat stencil, time stepped inside one parallel region      */
/* ------------------------------------------------------------------------ */

static void heat3d(real_t *restrict a, real_t *restrict b, int n, int steps,
                   real_t alpha) {
  const int nn = n + 2;
  double t0 = KB_NOW();

#pragma omp parallel firstprivate(a, b)
  {
    for (int s = 0; s < steps; s++) {
#pragma omp for schedule(static) nowait
      for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
          real_t *dst = b + IDX3(i, j, 0, nn, nn);
          const real_t *c = a + IDX3(i, j, 0, nn, nn);
          const real_t *ym = c - nn, *yp = c + nn;
          const real_t *xm = c - (size_t)nn * nn, *xp = c + (size_t)nn * nn;
          for (int k = 1; k <= n; k++)
            dst[k] = c[k] + alpha * (xm[k] + xp[k] + ym[k] + yp[k] + c[k - 1] +
                                     c[k + 1] - 6.0 * c[k]);
        }
      /* everyone must finish the sweep before the pointers flip */
#pragma omp barrier
#pragma omp master
      {
        if (s > 0 && s % 10 == 0)
          fprintf(stderr, "heat3d: step %d of %d, centre %.5f\n", s, steps,
                  b[IDX3(n / 2 + 1, n / 2 + 1, n / 2 + 1, nn, nn)]);
      }
      real_t *t = a;
      a = b;
      b = t;
    }
  }
  timer_add(T_HEAT, t0, 2.0 * sizeof(real_t) * steps * (double)n * n * n);
}

/* ------------------------------------------------------------------------ */
/* CSR sparse matrices                                                        */
/* ------------------------------------------------------------------------ */

/* Five-point Laplacian on an m x m grid, assembled row by row. */
static csr_t csr_laplace2d(int m) {
  csr_t A;
  const idx_t n = (idx_t)m * m;
  A.nrows = A.ncols = n;
  A.rowptr = aligned_calloc((size_t)n + 1, sizeof(idx_t));

  /* count first, so that rows can be filled in parallel */
#pragma omp parallel for
  for (idx_t r = 0; r < n; r++) {
    const int i = r / m, j = r % m;
    A.rowptr[r + 1] = 1 + (i > 0) + (i < m - 1) + (j > 0) + (j < m - 1);
  }
  for (idx_t r = 0; r < n; r++) A.rowptr[r + 1] += A.rowptr[r];

  A.nnz = A.rowptr[n];
  A.colind = aligned_calloc((size_t)A.nnz, sizeof(idx_t));
  A.val = aligned_calloc((size_t)A.nnz, sizeof(real_t));

#pragma omp parallel for schedule(static, 128)
  for (idx_t r = 0; r < n; r++) {
    const int i = r / m, j = r % m;
    idx_t *col = A.colind + A.rowptr[r];
    real_t *v = A.val + A.rowptr[r];
    if (i > 0) { *col++ = r - m; *v++ = -1.0; }
    if (j > 0) { *col++ = r - 1; *v++ = -1.0; }
    *col++ = r;
    *v++ = 4.0;
    if (j < m - 1) { *col++ = r + 1; *v++ = -1.0; }
    if (i < m - 1) { *col++ = r + m; *v++ = -1.0; }
  }
  return A;
}

static void csr_free(csr_t *A) {
  free(A->rowptr);
  free(A->colind);
  free(A->val);
  A->rowptr = A->colind = NULL;
  A->val = NULL;
  A->nrows = A->ncols = A->nnz = 0;
}

/* y = A x; called from inside a parallel region (orphaned worksharing). */
static void spmv_orphan(const csr_t *restrict A, const real_t *restrict x,
                        real_t *restrict y) {
  const idx_t *restrict rp = A->rowptr;
  const idx_t *restrict ci = A->colind;
  const real_t *restrict av = A->val;

#pragma omp for schedule(static)
  for (idx_t r = 0; r < A->nrows; r++) {
    real_t sum = 0.0;
    for (idx_t k = rp[r]; k < rp[r + 1]; k++) sum += av[k] * x[ci[k]];
    y[r] = sum;
  }
}

static void spmv(const csr_t *A, const real_t *x, real_t *y) {
  double t0 = KB_NOW();
#pragma omp parallel
  spmv_orphan(A, x, y);
  timer_add(T_SPMV, t0,
            (double)A->nnz * (sizeof(real_t) + sizeof(idx_t)) +
                2.0 * A->nrows * sizeof(real_t));
}

static real_t dot(const real_t *restrict a, const real_t *restrict b, idx_t n) {
  real_t s = 0.0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
  for (idx_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

static void axpby(idx_t n, real_t alpha, const real_t *restrict x, real_t beta,
                  real_t *restrict y) {
#pragma omp parallel for simd
  for (idx_t i = 0; i < n; i++)
    y[i] = alpha * x[i] + beta * y[i];
}

/* Unpreconditioned conjugate gradients.  The vector updates and the two
 * dot products of each iteration share one parallel region. */
static int cg_solve(const csr_t *A, const real_t *b, real_t *x, int maxit,
                    real_t tol, real_t *final_resid) {
  const idx_t n = A->nrows;
  real_t *r = aligned_calloc((size_t)n, sizeof(real_t));
  real_t *p = aligned_calloc((size_t)n, sizeof(real_t));
  real_t *q = aligned_calloc((size_t)n, sizeof(real_t));
  double t0 = KB_NOW();
  int it = 0;

  spmv(A, x, q);
  for (idx_t i = 0; i < n; i++) {
    r[i] = b[i] - q[i];
    p[i] = r[i];
  }
  real_t rho = dot(r, r, n);
  const real_t stop = tol * tol * dot(b, b, n);

  while (it < maxit && rho > stop) {
    real_t pq = 0.0, rho_new = 0.0;

#pragma omp parallel
    {
      spmv_orphan(A, p, q);

#pragma omp for reduction(+ : pq)
      for (idx_t i = 0; i < n; i++) pq += p[i] * q[i];

      const real_t alpha = rho / pq;

#pragma omp for reduction(+ : rho_new)
      for (idx_t i = 0; i < n; i++) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
        rho_new += r[i] * r[i];
      }

      const real_t beta = rho_new / rho;
#pragma omp for
      for (idx_t i = 0; i < n; i++) p[i] = r[i] + beta * p[i];
    }

    rho = rho_new;
    it++;
  }

  *final_resid = sqrt(rho);
  timer_add(T_CG, t0, 0.0);
  free(r);
  free(p);
  free(q);
  return it;
}

/* ------------------------------------------------------------------------ */
/* Reductions and a histogram                                                */
/* ------------------------------------------------------------------------ */

typedef struct {
  real_t min, max, sum, sumsq;
  idx_t argmax;
} stats_t;

static stats_t summarize(const real_t *v, idx_t n) {
  stats_t s = {INFINITY, -INFINITY, 0.0, 0.0, -1};
  real_t lo = INFINITY, hi = -INFINITY, sum = 0.0, sumsq = 0.0;

#pragma omp parallel reduction(min : lo) reduction(max : hi) \
    reduction(+ : sum, sumsq)
  {
    real_t local_hi = -INFINITY;
    idx_t local_arg = -1;

#pragma omp for nowait
    for (idx_t i = 0; i < n; i++) {
      const real_t x = v[i];
      if (x < lo) lo = x;
      if (x > local_hi) {
        local_hi = x;
        local_arg = i;
      }
      sum += x;
      sumsq += x * x;
    }
    if (local_hi > hi) hi = local_hi;

    /* argmax is not a built-in reduction; merge by hand */
#pragma omp critical(argmax_merge)
    {
      if (local_arg >= 0 &&
          (s.argmax < 0 || v[local_arg] > v[s.argmax] ||
           (v[local_arg] == v[s.argmax] && local_arg < s.argmax)))
        s.argmax = local_arg;
    }
  }
  s.min = lo;
  s.max = hi;
  s.sum = sum;
  s.sumsq = sumsq;
  return s;
}

static void histogram(const real_t *restrict v, idx_t n, real_t lo, real_t hi,
                      long *restrict bins) {
  const real_t scale = KB_HIST_BINS / (hi - lo);
  double t0 = KB_NOW();

  memset(bins, 0, KB_HIST_BINS * sizeof *bins);

#pragma omp parallel for schedule(dynamic, 4096)
  for (idx_t i = 0; i < n; i++) {
    int b = (int)((v[i] - lo) * scale);
    if (b < 0)
      b = 0;
    else if (b >= KB_HIST_BINS)
      b = KB_HIST_BINS - 1;
#pragma omp atomic
    bins[b] += 1;
  }
  timer_add(T_HIST, t0, (double)n * sizeof(real_t));
}

/* Largest bin, read with atomic loads while another thread may still be
 * filling the array in the overlap test below. */
static long busiest_bin(const long *bins) {
  long best = 0;
  for (int b = 0; b < KB_HIST_BINS; b++) {
    long c;
#pragma omp atomic read
    c = bins[b];
    if (c > best) best = c;
  }
  return best;
}

/* ------------------------------------------------------------------------ */
/* Adaptive Simpson quadrature with one task per subdivision                  */
/* ------------------------------------------------------------------------ */

typedef real_t (*integrand_fn)(real_t);

#pragma omp declare simd
static real_t bumpy(real_t x) {
  return exp(-x * x) * (1.0 + 0.5 * sin(12.0 * x)) + 1.0 / (1.0 + 100.0 * SQUARE(x - 0.3));
}

static real_t simpson(integrand_fn f, real_t a, real_t b) {
  const real_t m = 0.5 * (a + b);
  return (b - a) / 6.0 * (f(a) + 4.0 * f(m) + f(b));
}

static real_t adapt(integrand_fn f, real_t a, real_t b, real_t whole, real_t eps,
                    int depth) {
  const real_t m = 0.5 * (a + b);
  const real_t left = simpson(f, a, m);
  const real_t right = simpson(f, m, b);
  const real_t diff = left + right - whole;

  if (depth <= 0 || fabs(diff) <= 15.0 * eps) return left + right + diff / 15.0;

  real_t l = 0.0, r = 0.0;
  if (b - a > KB_QUAD_CUTOFF) {
#pragma omp task shared(l) firstprivate(a, m, left, eps, depth)
    l = adapt(f, a, m, left, 0.5 * eps, depth - 1);
#pragma omp task shared(r) firstprivate(m, b, right, eps, depth)
    r = adapt(f, m, b, right, 0.5 * eps, depth - 1);
#pragma omp taskwait
  } else {
    /* small intervals: task overhead would dominate */
    l = adapt(f, a, m, left, 0.5 * eps, depth - 1);
    r = adapt(f, m, b, right, 0.5 * eps, depth - 1);
  }
  return l + r;
}

static real_t integrate(integrand_fn f, real_t a, real_t b, real_t eps) {
  real_t result = 0.0;
  double t0 = KB_NOW();

#pragma omp parallel
  {
#pragma omp single
    {
      printf("quadrature: %d threads available\n", KB_TEAM_SIZE());
#pragma omp taskgroup
      {
        result = adapt(f, a, b, simpson(f, a, b), eps, 40);
      }
    }
  }
  timer_add(T_QUAD, t0, 0.0);
  return result;
}

/* Reference value by brute-force midpoint rule, vectorized. */
static real_t midpoint_reference(real_t a, real_t b, long n) {
  const real_t h = (b - a) / n;
  real_t s = 0.0;
#pragma omp parallel for simd reduction(+ : s)
  for (long i = 0; i < n; i++) s += bumpy(a + (i + 0.5) * h);
  return s * h;
}

/* ------------------------------------------------------------------------ */
/* A three-stage pipeline: produce, filter, consume.  The stages are         */
/* sections; blocks move between them through flags guarded by flushes.      */
/* ------------------------------------------------------------------------ */

typedef struct {
  block_t slots[KB_PIPE_DEPTH];
  volatile int state[KB_PIPE_DEPTH]; /* stage the slot is waiting for */
  int produced, consumed;
  double checksum;
} pipeline_t;

static void pipe_wait(pipeline_t *pl, int slot, int stage) {
  int s;
  for (;;) {
#pragma omp atomic read
    s = pl->state[slot];
    if (s == stage) break;
#pragma omp flush
  }
}

static void pipe_post(pipeline_t *pl, int slot, int stage) {
#pragma omp flush
#pragma omp atomic write
  pl->state[slot] = stage;
}

static void run_pipeline(pipeline_t *pl, int nblocks) {
  double t0 = KB_NOW();
  for (int s = 0; s < KB_PIPE_DEPTH; s++) pl->state[s] = STAGE_READ;
  pl->produced = pl->consumed = 0;
  pl->checksum = 0.0;

#pragma omp parallel sections num_threads(3)
  {
#pragma omp section
    {
      for (int b = 0; b < nblocks; b++) {
        const int slot = b % KB_PIPE_DEPTH;
        pipe_wait(pl, slot, STAGE_READ);
        block_t *blk = &pl->slots[slot];
        blk->id = b;
        blk->len = 64 + (b * 37) % 192;
        for (int k = 0; k < blk->len; k++) blk->data[k] = sin(0.01 * (b * 256 + k));
        pl->produced++;
        pipe_post(pl, slot, STAGE_FILTER);
      }
    }
#pragma omp section
    {
      for (int b = 0; b < nblocks; b++) {
        const int slot = b % KB_PIPE_DEPTH;
        pipe_wait(pl, slot, STAGE_FILTER);
        real_t *d = pl->slots[slot].data;
        const int len = pl->slots[slot].len;
        /* three-tap smoothing, in place, carrying the previous sample */
        real_t prev = d[0];
        for (int k = 1; k < len - 1; k++) {
          const real_t cur = d[k];
          d[k] = 0.25 * prev + 0.5 * cur + 0.25 * d[k + 1];
          prev = cur;
        }
        pipe_post(pl, slot, STAGE_WRITE);
      }
    }
#pragma omp section
    {
      for (int b = 0; b < nblocks; b++) {
        const int slot = b % KB_PIPE_DEPTH;
        pipe_wait(pl, slot, STAGE_WRITE);
        const block_t *blk = &pl->slots[slot];
        double acc = 0.0;
        for (const real_t *p = blk->data, *end = blk->data + blk->len; p != end; ++p)
          acc += *p;
        pl->checksum += acc / blk->len;
        pl->consumed++;
        pipe_post(pl, slot, STAGE_READ);
      }
    }
  }
  timer_add(T_PIPE, t0, (double)nblocks * sizeof(block_t));
}

/* ------------------------------------------------------------------------ */
/* Miscellaneous: ordered output, lastprivate, copyprivate, locks             */
/* ------------------------------------------------------------------------ */

static void report_partition(idx_t n) {
  idx_t last_start = -1;
#pragma omp parallel
  {
    const int nt = KB_TEAM_SIZE();
#pragma omp for ordered schedule(static, 1) lastprivate(last_start)
    for (int t = 0; t < nt; t++) {
      const idx_t start = (idx_t)((long long)n * t / nt);
      last_start = start;
#pragma omp ordered
      printf("  chunk %2d starts at %ld (thread %d)\n", t, (long)start, KB_THREAD_ID());
    }
  }
  printf("  last chunk begins at %ld of %ld\n", (long)last_start, (long)n);
}

static unsigned long lcg_next(unsigned long *state) {
  *state = *state * 6364136223846793005UL + 1442695040888963407UL;
  return *state >> 33;
}

static void fill_random(real_t *v, idx_t n, unsigned long seed) {
#pragma omp parallel
  {
    unsigned long st = 0;
#pragma omp single copyprivate(st)
    st = seed ^ 0x9e3779b97f4a7c15UL;
    /* every thread starts from the same seed, offset by its id */
    st += (unsigned long)KB_THREAD_ID() * 7919UL;
#pragma omp for schedule(static)
    for (idx_t i = 0; i < n; i++) {
      unsigned long local = st + (unsigned long)i;
      v[i] = (real_t)(lcg_next(&local) & 0xffffff) / (real_t)0x1000000;
    }
  }
}

#ifdef _OPENMP
static omp_lock_t print_lock;

static void locked_report(const char *what, double value) {
  omp_set_lock(&print_lock);
  printf("  [t%02d] %-12s %12.6f\n", omp_get_thread_num(), what, value);
  fflush(stdout);
  omp_unset_lock(&print_lock);
}
#else
static void locked_report(const char *what, double value) {
  printf("  [t00] %-12s %12.6f\n", what, value);
}
#endif

static void print_timers(void) {
  printf("\n%-12s %8s %12s %10s\n", "kernel", "calls", "seconds", "GB/s");
  for (int k = 0; k < T_COUNT; k++) {
    const kernel_timer_t *t = &timers[k];
    if (t->calls == 0) continue;
    const double gbs = t->seconds > 0.0 ? t->bytes / t->seconds * 1.0e-9 : 0.0;
    printf("%-12s %8ld %12.5f %10.2f\n", t->name, t->calls, t->seconds, gbs);
  }
}

int main(int argc, char *argv[]) {
  int edge = argc > 1 ? atoi(argv[1]) : KB_DEFAULT_EDGE;
  int reps = argc > 2 ? atoi(argv[2]) : KB_DEFAULT_REPS;
  if (edge < 8 || reps < 1) {
    fprintf(stderr, "usage: %s [edge >= 8] [reps >= 1]\n", argv[0]);
    return EXIT_FAILURE;
  }

#ifdef _OPENMP
  omp_init_lock(&print_lock);
  printf("kernels: OpenMP %d, %d threads\n", _OPENMP, omp_get_max_threads());
#else
  printf("kernels: serial build\n");
#endif

  /* 2-D Jacobi */
  grid2d_t g;
  grid_init(&g, edge, edge);
  jacobi_solve(&g, 50 * reps, 1.0e-6);
  grid_free(&g);

  /* 3-D heat */
  {
    const int n = edge / 4;
    const size_t cells = (size_t)(n + 2) * (n + 2) * (n + 2);
    real_t *a = aligned_calloc(cells, sizeof(real_t));
    real_t *b = aligned_calloc(cells, sizeof(real_t));
    a[IDX3(n / 2, n / 2, n / 2, n + 2, n + 2)] = 1000.0;
    heat3d(a, b, n, reps, 0.1);
    stats_t s = summarize(reps % 2 ? b : a, (idx_t)cells);
    printf("heat3d: max %.4f at %ld, total %.4f\n", s.max, (long)s.argmax, s.sum);
    free(a);
    free(b);
  }

  /* CSR + CG */
  csr_t A = csr_laplace2d(edge);
  real_t *x = aligned_calloc((size_t)A.nrows, sizeof(real_t));
  real_t *rhs = aligned_calloc((size_t)A.nrows, sizeof(real_t));
  fill_random(rhs, A.nrows, 12345UL);
  for (int k = 0; k < reps; k++) spmv(&A, rhs, x);
  memset(x, 0, (size_t)A.nrows * sizeof(real_t));

  real_t resid = 0.0;
  const int iters = cg_solve(&A, rhs, x, 4 * edge, 1.0e-8, &resid);
  printf("cg: %d iterations, residual %.3e, nnz %ld\n", iters, resid, (long)A.nnz);
  report_partition(A.nrows);

  /* statistics and histogram of the solution */
  {
    long bins[KB_HIST_BINS];
    stats_t s = summarize(x, A.nrows);
    const real_t mean = s.sum / A.nrows;
    const real_t sd = sqrt(fmax(s.sumsq / A.nrows - mean * mean, 0.0));
    histogram(x, A.nrows, s.min, s.max + 1.0e-12, bins);
    printf("solution: mean %.5f sd %.5f busiest bin %ld\n", mean, sd, busiest_bin(bins));

#pragma omp parallel sections
    {
#pragma omp section
      locked_report("min", s.min);
#pragma omp section
      locked_report("max", s.max);
#pragma omp section
      locked_report("mean", mean);
    }
  }

  csr_free(&A);
  free(x);
  free(rhs);

  /* task-parallel quadrature */
  const real_t q = integrate(bumpy, -2.0, 2.0, 1.0e-9);
  const real_t ref = midpoint_reference(-2.0, 2.0, 4000000L);
  printf("quadrature: %.12f (reference %.12f, diff %.2e)\n", q, ref, fabs(q - ref));

  /* pipeline */
  pipeline_t *pl = aligned_calloc(1, sizeof *pl);
  run_pipeline(pl, 200 * reps);
  printf("pipeline: %d produced, %d consumed, checksum %.6f\n", pl->produced,
         pl->consumed, pl->checksum);
  free(pl);

  /* sweep counts live in threadprivate storage */
  long total_sweeps = 0;
#pragma omp parallel reduction(+ : total_sweeps)
  total_sweeps += sweeps_done;
  printf("sweeps counted by the master thread: %ld\n", total_sweeps);

  print_timers();
#ifdef _OPENMP
  omp_destroy_lock(&print_lock);
#endif
  return EXIT_SUCCESS;
}
