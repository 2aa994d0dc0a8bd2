#pragma once
#include <cstddef>
#include <vector>

struct Particle {
    double x, v;
};

class Ensemble {
public:
    explicit Ensemble(std::size_t n);
    void advance(double dt, int steps);
    double kinetic_energy() const;
    std::vector<std::size_t> fastest(double threshold) const;

private:
    std::vector<Particle> particles_;
};

long grid_checksum(int n);
