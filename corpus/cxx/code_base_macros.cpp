/* pomp-corpus: variants -DOMP_COMPAT_3 -DUSE_OMP_SIMD -DOMP_COMPAT_3,-DUSE_OMP_SIMD */
// Directives as molecular dynamics codes write them: clauses spelled by
// macros from a compatibility header (default(none) for older compilers,
// nothing or default(shared) for newer ones), pointer declarations with a
// restrict macro the grammar cannot know, vendor pragmas between a
// directive and its loop, some chosen by a macro, and try blocks whose
// handler a macro writes, as a loop's body and around a loop.
#include <cstdio>
#include <cstdlib>
#include <vector>

#if defined(OMP_COMPAT_3)
#define MD_SHARED(...) shared(__VA_ARGS__)
#define MD_DEFAULT_NONE default(none)
#else
#define MD_SHARED(...)
#define MD_DEFAULT_NONE default(shared)
#endif
#define _noalias __restrict
// Exceptions may not leave a parallel region: each thread catches its own,
// the handler written by a macro.
#define MD_CATCH_ALL_AND_ABORT                                   \
    catch (...)                                                  \
    {                                                            \
        std::printf("exception in a parallel region\n");         \
        std::abort();                                            \
    }

struct vec3 {
    double x, y, z;
};

class Atoms {
public:
    explicit Atoms(int n) : pos_(n), force_(n), n_(n)
    {
        vec3 *const pos = pos_.data();
        const int n_local = n_;
#pragma omp parallel for MD_DEFAULT_NONE MD_SHARED(pos, n_local) schedule(static)
        for (int i = 0; i < n_local; ++i) {
            vec3 *_noalias const p = pos + i;
            p->x = i;
            p->y = 2.0 * i;
            p->z = 0.5 * i;
        }
    }

    // Pairwise forces with a cutoff, each thread writing its own atoms.
    long compute(double cutoff)
    {
        const vec3 *const pos = pos_.data();
        vec3 *const force = force_.data();
        const int n_local = n_;
        const double cutsq = cutoff * cutoff;
        long pairs = 0;
#pragma omp parallel MD_DEFAULT_NONE MD_SHARED(pos, force, n_local, cutsq) reduction(+ : pairs)
        {
            const vec3 *_noalias const x = pos;
            vec3 *_noalias const f = force;
#pragma omp for schedule(static)
            for (int i = 0; i < n_local; ++i) {
                double fx = 0.0, fy = 0.0, fz = 0.0;
                for (int j = 0; j < n_local; ++j) {
                    const double dx = x[i].x - x[j].x;
                    const double dy = x[i].y - x[j].y;
                    const double dz = x[i].z - x[j].z;
                    const double rsq = dx * dx + dy * dy + dz * dz;
                    if (j == i || rsq >= cutsq)
                        continue;
                    fx += dx;
                    fy += dy;
                    fz += dz;
                    ++pairs;
                }
                f[i].x = fx;
                f[i].y = fy;
                f[i].z = fz;
            }
        }
        return pairs;
    }

    double net_force() const
    {
        const vec3 *const force = force_.data();
        const int n_local = n_;
        double net = 0.0;
#pragma omp parallel MD_DEFAULT_NONE MD_SHARED(force, n_local, net)
        {
            const vec3 *_noalias const f = force;
#if defined(USE_OMP_SIMD)
#pragma omp for simd reduction(+ : net)
#else
#pragma omp for reduction(+ : net)
#endif
#pragma vector aligned
            for (int i = 0; i < n_local; ++i)
                net += f[i].x + f[i].y + f[i].z;
        }
        return net;
    }

private:
    std::vector<vec3> pos_;
    std::vector<vec3> force_;
    int n_;
};

static double scaled_sum(const double *_noalias values, int n)
{
    double sum = 0.0;
#if defined(USE_OMP_SIMD)
#pragma omp simd reduction(+ : sum)
#else
#pragma GCC ivdep
#endif
#pragma unroll
    for (int i = 0; i < n; ++i)
        sum += 0.25 * values[i];
    return sum;
}

// Counts the multiples of 3 below each bound, skipping the zero bounds, in
// a loop whose body is a try block whose handler a macro writes.
static long multiples(const std::vector<int> &bounds)
{
    long count = 0;
    const int n = static_cast<int>(bounds.size());
#pragma omp parallel for reduction(+ : count) schedule(static)
    for (int i = 0; i < n; ++i)
    {
        try
        {
            if (bounds[i] == 0)
                continue;
            count += bounds[i] / 3;
        }
        MD_CATCH_ALL_AND_ABORT
    }
    return count;
}

// The sum of 0 .. n-1, the whole parallel loop inside a try block whose
// handler a macro writes.
static long guarded_sum(int n)
{
    long total = 0;
    try
    {
#pragma omp parallel for reduction(+ : total) schedule(static)
        for (int i = 0; i < n; ++i)
        {
            total += i;
        }
    }
    MD_CATCH_ALL_AND_ABORT
    return total;
}

int main()
{
    Atoms atoms(400);
    const long pairs = atoms.compute(6.0);
    const double net = atoms.net_force();
    std::vector<double> values(1000);
    for (int i = 0; i < 1000; ++i)
        values[i] = i;
    const double sum = scaled_sum(values.data(), 1000);
    std::vector<int> bounds(300);
    for (int i = 0; i < 300; ++i)
        bounds[i] = i % 4 == 0 ? 0 : i;
    const long counted = multiples(bounds);
    const long guarded = guarded_sum(1000);
    std::printf("pairs %ld, net force %.1f, scaled sum %.2f, multiples %ld, guarded sum %ld\n",
                pairs, net, sum, counted, guarded);
    if (pairs != 1594 || net != 0.0 || sum != 124875.0 || counted != 11175 || guarded != 499500) {
        std::printf("FAILED\n");
        return 1;
    }
    std::printf("code base macros: ok\n");
    return 0;
}
