/* pomp-corpus: regions functions+lambdas */
// Every way out of a function: returns (their values computed once),
// the end of the body, exceptions unwinding through several functions,
// recursion; methods, constructors, destructors, templates and lambdas;
// a function holding OpenMP constructs and a hand-marked user region.
#include <cstdio>
#include <stdexcept>
#include <vector>
#include <algorithm>

namespace hydro {

static int evaluations = 0;

int counted(int v) {
    evaluations++;
    return v;
}

class Mesh {
  public:
    explicit Mesh(int n) : x_(n, 1.0) { std::printf("mesh of %d\n", n); }
    ~Mesh() { std::printf("mesh gone\n"); }

    double energy() const {
        double sum = 0;
#pragma omp parallel for reduction(+ : sum)
        for (int i = 0; i < (int)x_.size(); i++)
            sum += x_[i] * (i % 7);
        return sum;
    }

    void scale(double f) {
#pragma omp parallel
        {
#pragma omp for
            for (int i = 0; i < (int)x_.size(); i++)
                x_[i] *= f;
        }
    }

  private:
    std::vector<double> x_;
};

template <typename T> T clamp_to(T v, T lo, T hi) {
    if (v < lo)
        return counted(1) ? lo : hi;
    if (v > hi)
        return hi;
    return v;
}

int search(const std::vector<int> &values, int wanted) {
    for (int i = 0; i < (int)values.size(); i++) {
        if (values[i] == wanted)
            return counted(i);
    }
    return -1;
}

int ackermann_like(int depth) { return depth <= 0 ? 1 : ackermann_like(depth - 1) + ackermann_like(depth - 2); }

void check(int v) {
    if (v > 2)
        throw std::runtime_error("too large");
}

void deep(int v) {
    std::vector<int> guard(3, v);
    check(v);
    std::printf("deep passed %d\n", v);
}

int with_user_region(int n) {
    int total = 0;
#pragma pomp inst begin(accumulate)
    for (int i = 0; i < n; i++) {
        total += i;
        if (total > 20)
            return counted(total);
    }
#pragma pomp inst end(accumulate)
    return total;
}

constexpr int square(int v) { return v * v; }

} // namespace hydro

int main() {
    hydro::Mesh mesh(64);
    mesh.scale(2.0);
    std::printf("energy %.1f\n", mesh.energy());
    std::printf("clamp %d %d %d\n", hydro::clamp_to(-3, 0, 9), hydro::clamp_to(12, 0, 9),
                hydro::clamp_to(4, 0, 9));
    std::vector<int> values = {4, 8, 15, 16, 23, 42};
    std::printf("search %d %d\n", hydro::search(values, 16), hydro::search(values, 7));
    std::printf("recursion %d\n", hydro::ackermann_like(12));
    for (int v = 1; v <= 4; v++) {
        try {
            hydro::deep(v);
        } catch (const std::exception &e) {
            std::printf("caught %s at %d\n", e.what(), v);
        }
    }
    auto twice = [](int v) { return 2 * v; };
    std::vector<int> doubled(values.size());
    std::transform(values.begin(), values.end(), doubled.begin(), twice);
    std::printf("lambda %d %d\n", doubled.front(), doubled.back());
    std::printf("user region %d %d\n", hydro::with_user_region(4), hydro::with_user_region(10));
    static_assert(hydro::square(3) == 9, "constexpr functions stay constexpr");
    std::printf("evaluations %d\n", hydro::evaluations);
    return 0;
}
