/* pomp-corpus: regions loops,calls=step; variants -DWIDE */
/* Loops and calls measured as regions beside preprocessor conditionals.
 * A loop whose header the preprocessor chooses (`#ifdef` / `for` /
 * `#else` / `for` / `#endif`, one body) begins under a conditional it
 * does not end under, and so does a call whose arguments it chooses:
 * both are left as written, in either setting. A loop inside one branch,
 * and a loop holding a whole conditional, are measured. */
#include <stdio.h>

static long step(long v) { return v + 1; }

static long split_header(void) {
    long sum = 0;
#ifdef WIDE
    for (int i = 0; i < 20; i++)
#else
    for (int i = 0; i < 10; i++)
#endif
    {
        sum += i;
    }
    return sum;
}

static long split_call(long r) {
#ifdef WIDE
    r = step(r * 2
#else
    r = step(r * 3
#endif
    );
    return r;
}

static long inside_a_branch(void) {
    long sum = 0;
#ifdef WIDE
    for (int i = 0; i < 4; i++)
        sum += 2 * i;
#else
    for (int i = 0; i < 4; i++)
        sum += i;
#endif
    return sum;
}

static long holding_a_conditional(void) {
    long sum = 0;
    for (int i = 0; i < 6; i++) {
#ifdef WIDE
        sum += step(i);
#else
        sum = step(sum);
#endif
    }
    return sum;
}

int main(void) {
    long total = 0;
#pragma omp parallel for reduction(+ : total)
    for (int i = 0; i < 4; i++)
        total += i;
    printf("%ld %ld %ld %ld %ld\n", split_header(), split_call(5), inside_a_branch(),
           holding_a_conditional(), total);
    return 0;
}
