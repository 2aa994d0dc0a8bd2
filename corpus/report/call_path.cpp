// A parallel loop below a method and a template (main -> Grid::relax ->
// smooth<double> -> parallel for), reached twice. Built with
// --regions=functions, every thread's call path runs from main down to the
// loop. Arguments: the grid's length, the sweeps. Prints a checksum.
#include <cstdio>
#include <cstdlib>
#include <vector>

template <typename T>
static T smooth(std::vector<T> &cells)
{
    T sum = 0;
    const long n = static_cast<long>(cells.size());
#pragma omp parallel for reduction(+ : sum)
    for (long i = 1; i < n - 1; i++) {
        cells[i] = (cells[i - 1] + cells[i] + cells[i + 1]) / 3;
        sum += cells[i];
    }
    return sum;
}

struct Grid {
    std::vector<double> cells;
    explicit Grid(long n) : cells(n)
    {
        for (long i = 0; i < n; i++)
            cells[i] = static_cast<double>(i % 11);
    }
    double relax(int sweeps)
    {
        double total = 0;
        for (int s = 0; s < sweeps; s++)
            total += smooth(cells);
        return total;
    }
};

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 200000;
    int sweeps = argc > 2 ? std::atoi(argv[2]) : 2;
    Grid grid(n);
    // The loop updates cells in place: the checksum depends on the
    // schedule, so only its being finite is printed.
    double total = grid.relax(sweeps);
    std::printf("relaxed %d sweeps, finite %d\n", sweeps, total == total);
    return 0;
}
