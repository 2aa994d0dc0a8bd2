// Identifiers spelled with letters outside ASCII (C++23 allows them, gcc
// and clang accept them in UTF-8): the grammar tests such characters
// against its Unicode tables, ASCII ones against a table of its own.
#include <cstdio>

namespace größen {
struct Maß {
    long länge = 0;
};

long summe_über(const long *werte, int n) {
    long σ = 0;
#pragma omp parallel for reduction(+ : σ)
    for (int i = 0; i < n; i++)
        σ += werte[i];
    return σ;
}
} // namespace größen

int main() {
    long données[64];
    for (int i = 0; i < 64; i++) données[i] = i * 3;
    größen::Maß maß;
#pragma omp parallel
    {
#pragma omp single
        maß.länge = größen::summe_über(données, 64);
    }
    long 合計 = 0;
#pragma omp parallel for reduction(+ : 合計)
    for (int ñ = 0; ñ < 64; ñ++)
        合計 += données[ñ] % 7;
    std::printf("%ld %ld\n", maß.länge, 合計);
    return 0;
}
