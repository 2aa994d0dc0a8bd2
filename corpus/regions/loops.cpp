/* pomp-corpus: regions loops,functions */
// Outermost loops in C++: range-for, an exception thrown out of a loop
// and caught outside it, return from a loop in a method and a lambda,
// a loop holding a parallel region.
#include <cstdio>
#include <stdexcept>
#include <vector>

struct Grid {
    std::vector<int> cells;
    int first_above(int limit) const {
        for (int c : cells)
            if (c > limit)
                return c;
        return -1;
    }
};

static int checked(const std::vector<int>& v) {
    int sum = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] < 0)
            throw std::runtime_error("negative");
        sum += v[i];
    }
    return sum;
}

int main() {
    Grid g{{1, 5, 9}};
    std::printf("first_above %d\n", g.first_above(4));
    std::vector<int> good{1, 2, 3}, bad{1, -2, 3};
    std::printf("checked %d\n", checked(good));
    try {
        checked(bad);
    } catch (const std::exception& e) {
        std::printf("caught %s\n", e.what());
    }
    auto count = [](int n) {
        int k = 0;
        while (true) {
            if (k == n)
                return k;
            ++k;
        }
    };
    std::printf("count %d\n", count(3));
    int total = 0;
    for (int step = 0; step < 3; ++step) {
#pragma omp parallel reduction(+ : total)
        total += 1;
    }
    std::printf("total positive %d\n", total > 0);
    return 0;
}
