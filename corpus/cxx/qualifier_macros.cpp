/* pomp-corpus: variants -DPLAIN_QUALIFIERS */
// Qualifiers a code base spells with macros of its own, one definition per
// compiler: restrict on pointers, inline and device markers on functions,
// some defined as nothing. The grammar knows none of those names; pomp
// reads them as the compiler reads them.
#include <cstdio>

#if !defined(PLAIN_QUALIFIERS)
#define RESTRICT __restrict__
#define FORCE_INLINE inline
#else
#define RESTRICT
#define FORCE_INLINE
#endif
#define HOST_DEVICE

HOST_DEVICE FORCE_INLINE static double scale(double x)
{
    return 2.0 * x;
}

static void axpy(int n, double a, const double *RESTRICT x, double *RESTRICT y)
{
#pragma omp parallel for
    for (int i = 0; i < n; ++i)
        y[i] += a * scale(x[i]);
}

struct Field {
    double *RESTRICT values;
    int n;

    HOST_DEVICE double total() const
    {
        const double *RESTRICT v = values;
        double sum = 0.0;
#pragma omp parallel for reduction(+ : sum)
        for (int i = 0; i < n; ++i)
            sum += v[i];
        return sum;
    }
};

int main()
{
    double x[64], y[64];
    for (int i = 0; i < 64; ++i) {
        x[i] = i;
        y[i] = 1.0;
    }
    axpy(64, 0.5, x, y);
    Field field{y, 64};
    const double sum = field.total();
    std::printf("qualifier macros: %.1f\n", sum);
    return sum == 2080.0 ? 0 : 1;
}
