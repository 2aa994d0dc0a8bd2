/* pomp-corpus: regions loops,functions,lambdas,calls=step* */
// Loops measured inside hand-marked user regions in C++, left by jumps
// that leave the user region too: every region must end inner first. A
// return from a range-for in a method, from a loop in a lambda and in a
// function template; a break and a continue beside such a return; a goto
// out of the region; an exception thrown and caught inside the loop; a
// user region in a loop in a user region; a parallel region in a region.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

static int step(int v) { return v + 1; }

struct Inventory {
    std::vector<std::string> names;
    int position(const std::string& wanted) const {
        int at = 0;
#pragma pomp inst begin(lookup)
        for (const auto& name : names) {
            if (name.empty())
                continue;
            if (name == wanted)
                return at;
            if (name == "end")
                break;
            at = step(at);
        }
#pragma pomp inst end(lookup)
        return -1;
    }
};

template <typename T> static T first_above(const std::vector<T>& values, T limit) {
#pragma pomp inst begin(scan)
    for (std::size_t i = 0; i < values.size(); ++i)
        if (values[i] > limit)
            return values[i];
#pragma pomp inst end(scan)
    return T();
}

static int checked_sum(const std::vector<int>& values) {
    int sum = 0;
#pragma pomp inst begin(checking)
    for (int v : values) {
        try {
            if (v < 0)
                throw std::runtime_error("negative");
            sum += v;
        } catch (const std::exception&) {
            sum -= 100;
        }
        if (sum > 1000)
            goto overflow;
    }
#pragma pomp inst end(checking)
    return sum;
overflow:
    return -1;
}

static int layered(int n) {
    int k = 0;
#pragma pomp inst begin(outer)
    while (k < n) {
        std::string label(static_cast<std::size_t>(k), 'x');
#pragma pomp inst begin(inner)
        if (label.size() > 2)
            return static_cast<int>(label.size());
#pragma pomp inst end(inner)
        k = step(k);
    }
#pragma pomp inst end(outer)
    return -k;
}

int main() {
    Inventory inventory{{"a", "", "b", "end", "c"}};
    std::printf("position %d %d %d\n", inventory.position("b"), inventory.position("c"),
                inventory.position("z"));
    std::printf("first_above %d %.1f\n", first_above(std::vector<int>{1, 5, 9}, 4),
                first_above(std::vector<double>{0.5, 1.5}, 2.0));
    std::printf("checked_sum %d %d\n", checked_sum({1, -2, 3}), checked_sum({600, 600, 1}));
    std::printf("layered %d %d\n", layered(6), layered(2));
    auto countdown = [](int n) {
#pragma pomp inst begin(counting)
        do {
            if (n == 3)
                return n;
            --n;
        } while (n > 0);
#pragma pomp inst end(counting)
        return -1;
    };
    std::printf("countdown %d %d\n", countdown(7), countdown(2));
    int odd = 0;
#pragma pomp inst begin(team)
#pragma omp parallel for reduction(+ : odd)
    for (int i = 0; i < 9; i++)
        odd += i % 2;
#pragma pomp inst end(team)
    std::printf("odd %d\n", odd);
    return 0;
}
