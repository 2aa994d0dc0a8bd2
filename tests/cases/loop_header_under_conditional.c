/* A loop whose header the preprocessor chooses, and a call whose
 * arguments it chooses, begin under a conditional they do not end under:
 * measured, their braces would open in one branch and close after it.
 * They are left as written, with a note; the loop beside them, inside one
 * branch, is measured. */
static long step(long v) { return v + 1; }

long chosen(long r) {
    long sum = 0;
#ifdef WIDE
    for (int i = 0; i < 20; i++)
#else
    for (int i = 0; i < 10; i++)
#endif
    {
        sum += i;
    }
#ifdef WIDE
    r = step(r * 2
#else
    r = step(r * 3
#endif
    );
#ifdef WIDE
    for (int i = 0; i < 4; i++)
        sum += i;
#endif
#pragma omp parallel
    r += sum;
    return r;
}
