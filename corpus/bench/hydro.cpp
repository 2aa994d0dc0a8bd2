// Lagrangian shock hydrodynamics proxy, in the manner of LULESH: a cube of
// hexahedral elements, a blast in the corner element, and a leapfrog time
// step of a nodal phase (forces, accelerations, velocities, positions) and
// an element phase (kinematics, artificial viscosity, equation of state),
// then the time constraints. As such codes are written, every step calls
// small helpers per element and per node inside the parallel loops: the
// case that function regions and the filter loop are for.
// Built with -DHYDRO_MPI (and an MPI compiler), every rank steps a cube of
// its own, as LULESH's ranks step their domains: each step the ranks, in a
// line, trade a face of element energies with their neighbours and agree
// on the smallest time step, and the answers are those of one rank.
// usage: hydro [edge] [steps]
#include <omp.h>
#ifdef HYDRO_MPI
#include <mpi.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace hydro {

const double gamma_gas = 1.4;
const double cfl = 0.3;
const double q_quadratic = 2.0;
const double q_linear = 0.1;
const double max_volume_change = 0.05;

struct Point {
    double x, y, z;
};

static Point minus(const Point &a, const Point &b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }

static Point cross(const Point &a, const Point &b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

static double dot(const Point &a, const Point &b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

// The six tetrahedra around the diagonal from corner 0 to corner 6.
const int tetrahedra[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6},
                              {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};

class Mesh {
  public:
    explicit Mesh(int edge);

    int edge;
    int elements, nodes;
    std::vector<Point> position, velocity, force;
    std::vector<double> nodal_mass;
    std::vector<int> corners;           // 8 nodes per element
    std::vector<int> node_element_start; // node -> (element, corner) pairs
    std::vector<int> node_element;
    std::vector<Point> corner_force; // 8 per element
    std::vector<double> energy, pressure, viscosity, volume, reference_volume, volume_change,
        length, sound_speed, mass;
    double dt = 1e-7, time = 0.0;

    int node_index(int i, int j, int k) const { return (k * (edge + 1) + j) * (edge + 1) + i; }
};

Mesh::Mesh(int edge_)
    : edge(edge_), elements(edge_ * edge_ * edge_), nodes((edge_ + 1) * (edge_ + 1) * (edge_ + 1)) {
    position.resize(nodes);
    velocity.assign(nodes, {0, 0, 0});
    force.assign(nodes, {0, 0, 0});
    nodal_mass.assign(nodes, 0.0);
    double h = 1.125 / edge;
    for (int k = 0; k <= edge; k++)
        for (int j = 0; j <= edge; j++)
            for (int i = 0; i <= edge; i++) position[node_index(i, j, k)] = {i * h, j * h, k * h};
    corners.resize(8 * elements);
    for (int k = 0; k < edge; k++)
        for (int j = 0; j < edge; j++)
            for (int i = 0; i < edge; i++) {
                int *c = &corners[8 * ((k * edge + j) * edge + i)];
                c[0] = node_index(i, j, k);
                c[1] = node_index(i + 1, j, k);
                c[2] = node_index(i + 1, j + 1, k);
                c[3] = node_index(i, j + 1, k);
                c[4] = node_index(i, j, k + 1);
                c[5] = node_index(i + 1, j, k + 1);
                c[6] = node_index(i + 1, j + 1, k + 1);
                c[7] = node_index(i, j + 1, k + 1);
            }
    node_element_start.assign(nodes + 1, 0);
    for (int c : corners) node_element_start[c + 1]++;
    for (int n = 0; n < nodes; n++) node_element_start[n + 1] += node_element_start[n];
    node_element.resize(8 * elements);
    std::vector<int> fill(node_element_start.begin(), node_element_start.end() - 1);
    for (int e = 0; e < elements; e++)
        for (int c = 0; c < 8; c++) node_element[fill[corners[8 * e + c]]++] = 8 * e + c;
    corner_force.assign(8 * elements, {0, 0, 0});
    energy.assign(elements, 1e-3);
    energy[0] = 0.5 * elements;
    pressure.assign(elements, 0.0);
    viscosity.assign(elements, 0.0);
    volume.assign(elements, h * h * h);
    reference_volume.assign(elements, h * h * h);
    volume_change.assign(elements, 0.0);
    length.assign(elements, h);
    sound_speed.assign(elements, 0.0);
    mass.assign(elements, h * h * h);
    for (int e = 0; e < elements; e++)
        for (int c = 0; c < 8; c++) nodal_mass[corners[8 * e + c]] += mass[e] / 8.0;
}

// ---- helpers called per element and per node ---------------------------

static void collect_corners(const Mesh &mesh, int element, Point corner[8]) {
    for (int c = 0; c < 8; c++) corner[c] = mesh.position[mesh.corners[8 * element + c]];
}

static double tetrahedron_volume(const Point &a, const Point &b, const Point &c, const Point &d) {
    return dot(minus(b, a), cross(minus(c, a), minus(d, a))) / 6.0;
}

static double element_volume(const Point corner[8]) {
    double v = 0.0;
    for (const auto &t : tetrahedra)
        v += tetrahedron_volume(corner[t[0]], corner[t[1]], corner[t[2]], corner[t[3]]);
    return v;
}

// How each corner moving changes the element's volume: pressure pushes the
// corners along it.
static void volume_gradient(const Point corner[8], Point gradient[8]) {
    for (int c = 0; c < 8; c++) gradient[c] = {0, 0, 0};
    for (const auto &t : tetrahedra) {
        const Point &a = corner[t[0]];
        Point ab = minus(corner[t[1]], a), ac = minus(corner[t[2]], a), ad = minus(corner[t[3]], a);
        Point gb = cross(ac, ad), gc = cross(ad, ab), gd = cross(ab, ac);
        Point parts[3] = {gb, gc, gd};
        for (int p = 0; p < 3; p++) {
            Point &g = gradient[t[p + 1]];
            g.x += parts[p].x / 6.0;
            g.y += parts[p].y / 6.0;
            g.z += parts[p].z / 6.0;
            gradient[t[0]].x -= parts[p].x / 6.0;
            gradient[t[0]].y -= parts[p].y / 6.0;
            gradient[t[0]].z -= parts[p].z / 6.0;
        }
    }
}

static double characteristic_length(const Point corner[8], double v) {
    double longest = 0.0;
    for (int c = 0; c < 4; c++) {
        Point d = minus(corner[c + 4], corner[c]);
        longest = std::max(longest, dot(d, d));
    }
    return std::min(std::cbrt(v), std::sqrt(longest));
}

static double eos_pressure(double density, double specific_energy) {
    return std::max(0.0, (gamma_gas - 1.0) * density * specific_energy);
}

static double eos_sound_speed(double density, double p) {
    return std::sqrt(gamma_gas * std::max(p, 1e-12) / density);
}

static double artificial_viscosity(double density, double l, double c, double divergence) {
    if (divergence >= 0.0) return 0.0;
    double dv = l * divergence;
    return density * (q_quadratic * dv * dv + q_linear * c * std::fabs(dv));
}

static void symmetry_plane(Point &v, const Point &x) {
    if (x.x == 0.0) v.x = 0.0;
    if (x.y == 0.0) v.y = 0.0;
    if (x.z == 0.0) v.z = 0.0;
}

// ---- the nodal phase ----------------------------------------------------

static void integrate_stress_for_elements(Mesh &mesh) {
#pragma omp parallel for
    for (int e = 0; e < mesh.elements; e++) {
        Point corner[8], gradient[8];
        collect_corners(mesh, e, corner);
        volume_gradient(corner, gradient);
        double stress = mesh.pressure[e] + mesh.viscosity[e];
        for (int c = 0; c < 8; c++)
            mesh.corner_force[8 * e + c] = {stress * gradient[c].x, stress * gradient[c].y,
                                            stress * gradient[c].z};
    }
}

static void gather_forces_for_nodes(Mesh &mesh) {
#pragma omp parallel for
    for (int n = 0; n < mesh.nodes; n++) {
        Point f = {0, 0, 0};
        for (int i = mesh.node_element_start[n]; i < mesh.node_element_start[n + 1]; i++) {
            const Point &part = mesh.corner_force[mesh.node_element[i]];
            f.x += part.x;
            f.y += part.y;
            f.z += part.z;
        }
        mesh.force[n] = f;
    }
}

static void calc_force_for_nodes(Mesh &mesh) {
    integrate_stress_for_elements(mesh);
    gather_forces_for_nodes(mesh);
}

static void advance_nodes(Mesh &mesh) {
    double dt = mesh.dt;
#pragma omp parallel for
    for (int n = 0; n < mesh.nodes; n++) {
        Point &v = mesh.velocity[n];
        Point &x = mesh.position[n];
        double m = mesh.nodal_mass[n];
        v.x += dt * mesh.force[n].x / m;
        v.y += dt * mesh.force[n].y / m;
        v.z += dt * mesh.force[n].z / m;
        symmetry_plane(v, x);
        x.x += dt * v.x;
        x.y += dt * v.y;
        x.z += dt * v.z;
    }
}

static void lagrange_nodal(Mesh &mesh) {
    calc_force_for_nodes(mesh);
    advance_nodes(mesh);
}

// ---- the element phase --------------------------------------------------

static void calc_kinematics_for_elements(Mesh &mesh) {
#pragma omp parallel for
    for (int e = 0; e < mesh.elements; e++) {
        Point corner[8];
        collect_corners(mesh, e, corner);
        double v = element_volume(corner);
        mesh.volume_change[e] = v - mesh.volume[e];
        mesh.volume[e] = v;
        mesh.length[e] = characteristic_length(corner, v);
    }
}

static void calc_q_for_elements(Mesh &mesh) {
    double dt = mesh.dt;
#pragma omp parallel for
    for (int e = 0; e < mesh.elements; e++) {
        double density = mesh.mass[e] / mesh.volume[e];
        double divergence = mesh.volume_change[e] / (mesh.volume[e] * dt);
        mesh.viscosity[e] =
            artificial_viscosity(density, mesh.length[e], mesh.sound_speed[e], divergence);
    }
}

static void apply_material_properties(Mesh &mesh) {
#pragma omp parallel for
    for (int e = 0; e < mesh.elements; e++) {
        // Work done by the pressure and viscosity on the volume change.
        double work = (mesh.pressure[e] + mesh.viscosity[e]) * mesh.volume_change[e];
        mesh.energy[e] = std::max(0.0, mesh.energy[e] - work / mesh.mass[e]);
        double density = mesh.mass[e] / mesh.volume[e];
        mesh.pressure[e] = eos_pressure(density, mesh.energy[e]);
        mesh.sound_speed[e] = eos_sound_speed(density, mesh.pressure[e]);
    }
}

static void lagrange_elements(Mesh &mesh) {
    calc_kinematics_for_elements(mesh);
    calc_q_for_elements(mesh);
    apply_material_properties(mesh);
}

// ---- the time step ------------------------------------------------------

// The largest stable step: sound crossing an element (Courant) and a
// bounded relative change of volume per step.
static double calc_time_constraints(const Mesh &mesh) {
    double limit = 1e20;
    double dt = mesh.dt;
#pragma omp parallel for reduction(min : limit)
    for (int e = 0; e < mesh.elements; e++) {
        double speed = mesh.sound_speed[e] + std::sqrt(mesh.viscosity[e] * mesh.volume[e] /
                                                       mesh.mass[e]);
        if (speed > 0.0) limit = std::min(limit, cfl * mesh.length[e] / speed);
        double rate = std::fabs(mesh.volume_change[e] / (mesh.volume[e] * dt));
        if (rate > 0.0) limit = std::min(limit, max_volume_change / rate);
    }
    return limit;
}

static void time_increment(Mesh &mesh, double limit) {
    double next = std::min(limit, 1.2 * mesh.dt);
    mesh.time += mesh.dt;
    mesh.dt = next;
}

#ifdef HYDRO_MPI
// The energies of the first and last layer of elements go to the ranks
// below and above; what comes back is only received, as a halo would be.
static void exchange_faces(const Mesh &mesh) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int face = mesh.edge * mesh.edge;
    std::vector<double> below(face), above(face);
    MPI_Request requests[4];
    int pending = 0;
    if (rank > 0) {
        MPI_Irecv(below.data(), face, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD,
                  &requests[pending++]);
        MPI_Isend(mesh.energy.data(), face, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD,
                  &requests[pending++]);
    }
    if (rank + 1 < size) {
        MPI_Irecv(above.data(), face, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD,
                  &requests[pending++]);
        MPI_Isend(mesh.energy.data() + (mesh.elements - face), face, MPI_DOUBLE, rank + 1, 1,
                  MPI_COMM_WORLD, &requests[pending++]);
    }
    MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE);
}
#endif

static void lagrange_leap_frog(Mesh &mesh) {
    lagrange_nodal(mesh);
    lagrange_elements(mesh);
    double limit = calc_time_constraints(mesh);
#ifdef HYDRO_MPI
    exchange_faces(mesh);
    MPI_Allreduce(MPI_IN_PLACE, &limit, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
#endif
    time_increment(mesh, limit);
}

static double total_energy(const Mesh &mesh) {
    double sum = 0.0;
    for (int e = 0; e < mesh.elements; e++) sum += mesh.energy[e] * mesh.mass[e];
    for (int n = 0; n < mesh.nodes; n++)
        sum += 0.5 * mesh.nodal_mass[n] * dot(mesh.velocity[n], mesh.velocity[n]);
    return sum;
}

} // namespace hydro

int main(int argc, char **argv) {
#ifdef HYDRO_MPI
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#else
    int rank = 0;
#endif
    int edge = argc > 1 ? std::atoi(argv[1]) : 30;
    int steps = argc > 2 ? std::atoi(argv[2]) : 100;
    if (edge < 1 || steps < 0) {
        std::fprintf(stderr, "usage: hydro [edge] [steps]\n");
        return 2;
    }
    hydro::Mesh mesh(edge);
    // The equation of state before the first step.
    hydro::apply_material_properties(mesh);
    double start = omp_get_wtime();
    for (int step = 0; step < steps; step++) hydro::lagrange_leap_frog(mesh);
    double seconds = omp_get_wtime() - start;
    double energy = hydro::total_energy(mesh);
#ifdef HYDRO_MPI
    double energies = 0.0;
    MPI_Reduce(&energy, &energies, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    energy = energies / size;
    MPI_Finalize();
#endif
    if (rank != 0) return 0;
    std::printf("edge=%d steps=%d time=%.6e dt=%.6e\n", edge, steps, mesh.time, mesh.dt);
    std::printf("origin energy=%.6e total energy=%.6e\n", mesh.energy[0], energy);
    std::fprintf(stderr, "seconds=%.3f\n", seconds);
    return 0;
}
