// Functions whose whole body is one directive and its block, the block
// empty once its own directives are set aside: without them the C++
// grammar would read `void f() { { } }` as a declaration of `f` with an
// initializer list. Each is the body the compiler reads.
#include <cstdio>

static int entered = 0;

static void team_meets()
{
#pragma omp parallel
    {
#pragma omp barrier
    }
}

static void team_idles()
{
#pragma omp parallel
    {
    }
}

static void one_enters()
{
#pragma omp parallel
#pragma omp single
    {
        /* nothing but this comment */
    }
}

static void one_counts()
{
#pragma omp parallel num_threads(2)
    {
#pragma omp critical
        {
            entered++;
        }
    }
}

int main()
{
    team_meets();
    team_idles();
    one_enters();
    one_counts();
    auto lambda = [] {
#pragma omp parallel
        {
#pragma omp barrier
        }
    };
    lambda();
    std::printf("entered the critical section %d times\n", entered);
    return 0;
}
