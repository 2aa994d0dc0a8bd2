#ifndef APP_H
#define APP_H

/* Sum of a weighted three-point stencil over a deterministic signal. */
long stencil_checksum(int n, int sweeps);
/* Fibonacci number computed with one task per call above the cutoff. */
long task_fib(int n);
/* Histogram of i*i mod buckets for i < n; returns the count in the fullest bucket. */
long histogram_peak(int n, int buckets);
/* Number of multiples of k below n, counted under a critical section. */
long count_multiples(int n, int k);
/* Deterministic pseudo-random value, shared by all kernels. */
unsigned lcg(unsigned x);

#endif
