/* A loop measured in a user region and left by a jump that leaves the
 * user region too ends at that jump, before the user region: it is
 * begun and ended by calls of its own, its end also after the loop, where
 * its own break goes on. A loop nothing leaves that way keeps the scope
 * that ends it. */
static int first_negative(const int *values, int n)
{
#pragma pomp inst begin(search)
    for (int i = 0; i < n; i++) {
        if (values[i] == 0)
            break;
        if (values[i] < 0)
            return i;
    }
#pragma pomp inst end(search)
    return -1;
}

static int sum(const int *values, int n)
{
    int s = 0;
#pragma pomp inst begin(summing)
    for (int i = 0; i < n; i++) {
        if (values[i] < 0)
            break;
        s += values[i];
    }
#pragma pomp inst end(summing)
    return s;
}
