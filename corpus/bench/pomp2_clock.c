/* The null POMP2 library with one clock read per event and nothing else:
 * the least any library pays that gives each event its own time stamp.
 * Reads the time-stamp counter as pomp's runtime does where it is
 * invariant (elsewhere, CLOCK_MONOTONIC). */
#include <stdint.h>
#include <stdio.h>
#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t pomp2_ticks(void) { return __rdtsc(); }
#else
#include <time.h>
static inline uint64_t pomp2_ticks(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

/* Each thread keeps the last time stamp, so the read is not dead code. */
static __thread uint64_t pomp2_last_ticks;
#define POMP2_EVENT() (pomp2_last_ticks = pomp2_ticks())

#include "pomp2_null.c"
