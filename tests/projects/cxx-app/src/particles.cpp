#include "particles.hpp"
#include <algorithm>

Ensemble::Ensemble(std::size_t n) : particles_(n)
{
    for (std::size_t i = 0; i < n; ++i)
        particles_[i] = Particle{double(i % 101), double(i % 13) - 6.0};
}

void Ensemble::advance(double dt, int steps)
{
    const long n = static_cast<long>(particles_.size());
    for (int s = 0; s < steps; ++s) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; ++i) {
            Particle &p = particles_[i];
            p.v -= 0.01 * p.x * dt;
            p.x += p.v * dt;
        }
    }
}

double Ensemble::kinetic_energy() const
{
    const long n = static_cast<long>(particles_.size());
    // Sums of integers (millijoules) do not depend on the order threads add
    // them in, so every build and thread count prints the same energy.
    std::vector<long> partial;
#pragma omp parallel
    {
#pragma omp single
        partial.assign(64, 0);
#pragma omp for schedule(static)
        for (long i = 0; i < n; ++i) {
            long millijoules = static_cast<long>(500.0 * particles_[i].v * particles_[i].v);
#pragma omp critical
            partial[i % 64] += millijoules;
        }
    }
    long energy = 0;
    for (long e : partial)
        energy += e;
    return energy / 1000.0;
}

std::vector<std::size_t> Ensemble::fastest(double threshold) const
{
    std::vector<std::size_t> found;
    const long n = static_cast<long>(particles_.size());
#pragma omp parallel for
    for (long i = 0; i < n; ++i) {
        if (particles_[i].v > threshold) {
#pragma omp critical(found_list)
            found.push_back(static_cast<std::size_t>(i));
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}
