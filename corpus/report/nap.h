/* Sleeping a known time, whatever signals interrupt it. */
#ifndef NAP_H
#define NAP_H
#include <time.h>

static void nap_us(long us)
{
    struct timespec left = {us / 1000000, (us % 1000000) * 1000L};
    while (nanosleep(&left, &left) != 0) {
    }
}
#endif
