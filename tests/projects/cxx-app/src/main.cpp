// The driver: no directives of its own.
#include "particles.hpp"
#include <cstdio>

int main()
{
    Ensemble ensemble(20000);
    ensemble.advance(0.01, 10);
    std::printf("energy %.3f\n", ensemble.kinetic_energy());
    std::printf("fastest %zu\n", ensemble.fastest(5.5).size());
    std::printf("grid %ld\n", grid_checksum(50000));
    return 0;
}
