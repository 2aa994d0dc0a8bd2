// A Lagrangian shock-hydrodynamics proxy application in one main file, as
// the hydrodynamics mini-apps of HPC centres are written: a structured mesh
// of hexahedral elements stored as unstructured connectivity, a domain
// class holding every nodal and element field with accessors, one
// OpenMP loop per physics kernel, reductions for the time-step
// constraints, and a driver with command-line options, timing and a
// check of the result (a Sedov-like blast in a corner of the mesh; the
// physics is simplified, so only finite energies and volumes are
// checked). It is the benchmark input of scripts/bench-wrapper, which
// compiles it plain and through pomp-cxx; it is C++14, the oldest default
// of the compilers the wrappers run, and also builds and runs:
//
//   g++ -O2 -fopenmp hydro_proxy.cpp -o hydro && ./hydro -s 12 -i 40

#include <algorithm>
#include <array>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hydro {

using Real = double;
using Index = int;

constexpr Real kTiny = 1.0e-36;
constexpr Real kGamma = 1.4;
constexpr Real kPressureFloor = 0.0;
constexpr Real kEnergyFloor = -1.0e15;
constexpr Real kCutoffVelocity = 1.0e-7;
constexpr Real kCutoffEnergy = 1.0e-7;
constexpr Real kCutoffPressure = 1.0e-7;
constexpr Real kCutoffQ = 1.0e-7;
constexpr Real kCutoffVolume = 1.0e-10;
constexpr Real kHourglassCoefficient = 3.0;
constexpr Real kSsc = 0.3333333e-18;
constexpr Real kQStop = 1.0e12;
constexpr Real kMonotonicLimiter = 2.0;
constexpr Real kQQuadratic = 2.0 / 3.0;
constexpr Real kQLinearCoefficient = 0.5;
constexpr Real kQQuadraticCoefficient = 2.0 / 3.0;
constexpr Real kMaxVolumeChange = 0.1;
constexpr Real kReferenceDensity = 1.0;

/// A point or a vector in three dimensions.
struct Vec3 {
    Real x = 0.0, y = 0.0, z = 0.0;

    Vec3() = default;
    constexpr Vec3(Real x_, Real y_, Real z_) : x{x_}, y{y_}, z{z_} { }

    Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
    Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
    Vec3 operator*(Real s) const { return {x * s, y * s, z * s}; }
    Vec3 &operator+=(const Vec3 &o)
    {
        x += o.x;
        y += o.y;
        z += o.z;
        return *this;
    }
    Vec3 &operator-=(const Vec3 &o)
    {
        x -= o.x;
        y -= o.y;
        z -= o.z;
        return *this;
    }
    Real dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
    Vec3 cross(const Vec3 &o) const
    {
        return {y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x};
    }
    Real norm() const { return std::sqrt(dot(*this)); }
};

inline Vec3 operator*(Real s, const Vec3 &v) { return v * s; }

inline std::ostream &operator<<(std::ostream &out, const Vec3 &v)
{
    return out << '(' << v.x << ", " << v.y << ", " << v.z << ')';
}

/// The eight corners of a hexahedral element, and what is computed per corner.
template <typename T>
using Corners = std::array<T, 8>;

/// Boundary conditions of an element face, as bit flags.
enum BoundaryFlags : unsigned {
    XiMinusSymmetry = 0x001,
    XiMinusFree = 0x002,
    XiMinusComm = 0x004,
    XiPlusSymmetry = 0x008,
    XiPlusFree = 0x010,
    XiPlusComm = 0x020,
    EtaMinusSymmetry = 0x040,
    EtaMinusFree = 0x080,
    EtaMinusComm = 0x100,
    EtaPlusSymmetry = 0x200,
    EtaPlusFree = 0x400,
    EtaPlusComm = 0x800,
    ZetaMinusSymmetry = 0x1000,
    ZetaMinusFree = 0x2000,
    ZetaMinusComm = 0x4000,
    ZetaPlusSymmetry = 0x8000,
    ZetaPlusFree = 0x10000,
    ZetaPlusComm = 0x20000,
};

/// What the driver was asked for.
struct Options {
    int size = 16;
    int iterations = 60;
    int regions = 5;
    int balance = 1;
    int cost = 1;
    Real stop_time = 1.0e-2;
    bool quiet = false;
    bool show_progress = false;
    bool verify = true;

    static Options parse(int argc, char **argv)
    {
        Options options;
        for (int i = 1; i < argc; ++i) {
            std::string arg = argv[i];
            auto value = [&](const char *what) {
                if (i + 1 >= argc)
                    throw std::invalid_argument(std::string("missing value for ") + what);
                return std::string(argv[++i]);
            };
            if (arg == "-s")
                options.size = std::stoi(value("-s"));
            else if (arg == "-i")
                options.iterations = std::stoi(value("-i"));
            else if (arg == "-r")
                options.regions = std::stoi(value("-r"));
            else if (arg == "-b")
                options.balance = std::stoi(value("-b"));
            else if (arg == "-c")
                options.cost = std::stoi(value("-c"));
            else if (arg == "-t")
                options.stop_time = std::stod(value("-t"));
            else if (arg == "-q")
                options.quiet = true;
            else if (arg == "-p")
                options.show_progress = true;
            else if (arg == "--no-verify")
                options.verify = false;
            else if (arg == "-h" || arg == "--help")
                throw std::invalid_argument("usage");
            else
                throw std::invalid_argument("unknown option " + arg);
        }
        if (options.size < 2 || options.iterations < 1 || options.regions < 1)
            throw std::invalid_argument("sizes, iterations and regions must be positive");
        return options;
    }

    std::string describe() const
    {
        std::ostringstream out;
        out << size << "^3 elements, " << iterations << " iterations at most, " << regions
            << " material regions (balance " << balance << ", cost " << cost << "), stop at t = "
            << stop_time;
        return out.str();
    }
};

/// Every nodal and element field of the mesh, with the connectivity
/// between them.
class Domain {
public:
    explicit Domain(const Options &options);

    // Mesh sizes.
    Index edge_elements() const { return edge_elems_; }
    Index edge_nodes() const { return edge_nodes_; }
    Index num_elements() const { return num_elems_; }
    Index num_nodes() const { return num_nodes_; }
    Index num_regions() const { return static_cast<Index>(region_elements_.size()); }
    Index region_size(Index r) const { return static_cast<Index>(region_elements_[r].size()); }
    const std::vector<Index> &region(Index r) const { return region_elements_[r]; }
    Index region_cost(Index r) const { return region_cost_[r]; }

    // Nodal positions, velocities, accelerations, forces and masses.
    Real &x(Index n) { return x_[n]; }
    Real &y(Index n) { return y_[n]; }
    Real &z(Index n) { return z_[n]; }
    Real &xd(Index n) { return xd_[n]; }
    Real &yd(Index n) { return yd_[n]; }
    Real &zd(Index n) { return zd_[n]; }
    Real &xdd(Index n) { return xdd_[n]; }
    Real &ydd(Index n) { return ydd_[n]; }
    Real &zdd(Index n) { return zdd_[n]; }
    Real &fx(Index n) { return fx_[n]; }
    Real &fy(Index n) { return fy_[n]; }
    Real &fz(Index n) { return fz_[n]; }
    Real &nodal_mass(Index n) { return nodal_mass_[n]; }
    Real x(Index n) const { return x_[n]; }
    Real y(Index n) const { return y_[n]; }
    Real z(Index n) const { return z_[n]; }
    Real xd(Index n) const { return xd_[n]; }
    Real yd(Index n) const { return yd_[n]; }
    Real zd(Index n) const { return zd_[n]; }
    Real nodal_mass(Index n) const { return nodal_mass_[n]; }
    Vec3 position(Index n) const { return {x_[n], y_[n], z_[n]}; }
    Vec3 velocity(Index n) const { return {xd_[n], yd_[n], zd_[n]}; }

    // Symmetry planes.
    const std::vector<Index> &symmetry_x() const { return symm_x_; }
    const std::vector<Index> &symmetry_y() const { return symm_y_; }
    const std::vector<Index> &symmetry_z() const { return symm_z_; }

    // Element connectivity and neighbours.
    const Index *nodelist(Index e) const { return &nodelist_[8 * static_cast<std::size_t>(e)]; }
    Index lxim(Index e) const { return lxim_[e]; }
    Index lxip(Index e) const { return lxip_[e]; }
    Index letam(Index e) const { return letam_[e]; }
    Index letap(Index e) const { return letap_[e]; }
    Index lzetam(Index e) const { return lzetam_[e]; }
    Index lzetap(Index e) const { return lzetap_[e]; }
    unsigned elem_bc(Index e) const { return elem_bc_[e]; }

    // Node to corner lists, for gathering corner forces without races.
    Index node_elem_count(Index n) const { return node_elem_start_[n + 1] - node_elem_start_[n]; }
    const Index *node_elem_corners(Index n) const { return &node_elem_corner_list_[node_elem_start_[n]]; }

    // Element fields.
    Real &e(Index i) { return e_[i]; }
    Real &p(Index i) { return p_[i]; }
    Real &q(Index i) { return q_[i]; }
    Real &ql(Index i) { return ql_[i]; }
    Real &qq(Index i) { return qq_[i]; }
    Real &v(Index i) { return v_[i]; }
    Real &volo(Index i) { return volo_[i]; }
    Real &vnew(Index i) { return vnew_[i]; }
    Real &delv(Index i) { return delv_[i]; }
    Real &vdov(Index i) { return vdov_[i]; }
    Real &arealg(Index i) { return arealg_[i]; }
    Real &ss(Index i) { return ss_[i]; }
    Real &elem_mass(Index i) { return elem_mass_[i]; }
    Real &dxx(Index i) { return dxx_[i]; }
    Real &dyy(Index i) { return dyy_[i]; }
    Real &dzz(Index i) { return dzz_[i]; }
    Real &delv_xi(Index i) { return delv_xi_[i]; }
    Real &delv_eta(Index i) { return delv_eta_[i]; }
    Real &delv_zeta(Index i) { return delv_zeta_[i]; }
    Real &delx_xi(Index i) { return delx_xi_[i]; }
    Real &delx_eta(Index i) { return delx_eta_[i]; }
    Real &delx_zeta(Index i) { return delx_zeta_[i]; }
    Real e(Index i) const { return e_[i]; }
    Real p(Index i) const { return p_[i]; }
    Real q(Index i) const { return q_[i]; }
    Real v(Index i) const { return v_[i]; }
    Real volo(Index i) const { return volo_[i]; }
    Real elem_mass(Index i) const { return elem_mass_[i]; }

    // Time stepping.
    Real &time() { return time_; }
    Real &deltatime() { return deltatime_; }
    Real &dtcourant() { return dtcourant_; }
    Real &dthydro() { return dthydro_; }
    Real &dtmax() { return dtmax_; }
    Real &stoptime() { return stoptime_; }
    Index &cycle() { return cycle_; }
    Real time() const { return time_; }
    Index cycle() const { return cycle_; }

    // Per-corner scratch arrays for the force computation.
    std::vector<Real> &corner_fx() { return corner_fx_; }
    std::vector<Real> &corner_fy() { return corner_fy_; }
    std::vector<Real> &corner_fz() { return corner_fz_; }

    Real total_energy() const;
    Real total_mass() const;
    std::string summary() const;

private:
    void build_mesh(Real width);
    void build_connectivity();
    void build_boundaries();
    void build_regions(const Options &options);
    void build_node_corners();
    void deposit_energy();

    Index edge_elems_ = 0;
    Index edge_nodes_ = 0;
    Index num_elems_ = 0;
    Index num_nodes_ = 0;

    std::vector<Real> x_, y_, z_;
    std::vector<Real> xd_, yd_, zd_;
    std::vector<Real> xdd_, ydd_, zdd_;
    std::vector<Real> fx_, fy_, fz_;
    std::vector<Real> nodal_mass_;
    std::vector<Index> symm_x_, symm_y_, symm_z_;

    std::vector<Index> nodelist_;
    std::vector<Index> lxim_, lxip_, letam_, letap_, lzetam_, lzetap_;
    std::vector<unsigned> elem_bc_;
    std::vector<Index> node_elem_start_;
    std::vector<Index> node_elem_corner_list_;

    std::vector<Real> e_, p_, q_, ql_, qq_, v_, volo_, vnew_, delv_, vdov_, arealg_, ss_, elem_mass_;
    std::vector<Real> dxx_, dyy_, dzz_;
    std::vector<Real> delv_xi_, delv_eta_, delv_zeta_;
    std::vector<Real> delx_xi_, delx_eta_, delx_zeta_;

    std::vector<std::vector<Index>> region_elements_;
    std::vector<Index> region_cost_;
    std::vector<Index> elem_region_;

    std::vector<Real> corner_fx_, corner_fy_, corner_fz_;

    Real time_ = 0.0;
    Real deltatime_ = 1.0e-7;
    Real dtcourant_ = 1.0e20;
    Real dthydro_ = 1.0e20;
    Real dtmax_ = 1.0e-2;
    Real stoptime_ = 1.0e-2;
    Index cycle_ = 0;
};

// ---------------------------------------------------------------------------
// Element geometry: volumes, characteristic lengths, shape function
// derivatives and face normals of a hexahedron given its corners.
// ---------------------------------------------------------------------------

/// Six times the volume of the tetrahedra-decomposed hexahedron's piece.
inline Real triple_product(const Vec3 &a, const Vec3 &b, const Vec3 &c) { return a.dot(b.cross(c)); }

/// The volume of a hexahedron with corners `p` (numbered as the mesh does:
/// the bottom face counter-clockwise, then the top face).
inline Real hex_volume(const Corners<Vec3> &p)
{
    const Vec3 d61 = p[6] - p[1];
    const Vec3 d70 = p[7] - p[0];
    const Vec3 d63 = p[6] - p[3];
    const Vec3 d20 = p[2] - p[0];
    const Vec3 d50 = p[5] - p[0];
    const Vec3 d64 = p[6] - p[4];
    const Vec3 d31 = p[3] - p[1];
    const Vec3 d72 = p[7] - p[2];
    const Vec3 d43 = p[4] - p[3];
    const Vec3 d57 = p[5] - p[7];
    const Vec3 d14 = p[1] - p[4];
    const Vec3 d25 = p[2] - p[5];
    Real volume = triple_product(d31 + d72, d63, d20) + triple_product(d43 + d57, d64, d70)
                  + triple_product(d14 + d25, d61, d50);
    return volume / 12.0;
}

/// The area of a face given its four corners, squared, as used for the
/// characteristic length.
inline Real face_area_squared(const Vec3 &p0, const Vec3 &p1, const Vec3 &p2, const Vec3 &p3)
{
    const Vec3 f = (p2 - p0) - (p3 - p1);
    const Vec3 g = (p2 - p0) + (p3 - p1);
    const Real fg = f.dot(g);
    return f.dot(f) * g.dot(g) - fg * fg;
}

/// The element's characteristic length: its volume over its largest face.
inline Real characteristic_length(const Corners<Vec3> &p, Real volume)
{
    Real largest = 0.0;
    largest = std::max(face_area_squared(p[0], p[1], p[2], p[3]), largest);
    largest = std::max(face_area_squared(p[4], p[5], p[6], p[7]), largest);
    largest = std::max(face_area_squared(p[0], p[1], p[5], p[4]), largest);
    largest = std::max(face_area_squared(p[1], p[2], p[6], p[5]), largest);
    largest = std::max(face_area_squared(p[2], p[3], p[7], p[6]), largest);
    largest = std::max(face_area_squared(p[3], p[0], p[4], p[7]), largest);
    return 4.0 * volume / std::sqrt(largest);
}

/// Derivatives of the trilinear shape functions at the element's centre,
/// and the Jacobian's determinant.
inline Real shape_derivatives(const Corners<Vec3> &p, Corners<Vec3> &b)
{
    const Vec3 fjxi = (p[6] - p[0] + p[5] - p[3] - p[7] + p[1] - p[4] + p[2]) * 0.125;
    const Vec3 fjet = (p[6] - p[0] - p[5] + p[3] + p[7] - p[1] - p[4] + p[2]) * 0.125;
    const Vec3 fjze = (p[6] - p[0] + p[5] + p[3] + p[7] - p[1] + p[4] - p[2]) * 0.125;

    const Vec3 cjxi = fjet.cross(fjze);
    const Vec3 cjet = fjze.cross(fjxi);
    const Vec3 cjze = fjxi.cross(fjet);

    b[0] = (cjxi + cjet + cjze) * -1.0;
    b[1] = cjxi - cjet - cjze;
    b[2] = cjxi + cjet - cjze;
    b[3] = cjet - cjxi - cjze;
    b[4] = b[2] * -1.0;
    b[5] = b[3] * -1.0;
    b[6] = b[0] * -1.0;
    b[7] = b[1] * -1.0;

    return 8.0 * fjet.dot(cjet);
}

/// The normal of one face, a quarter of it added to each of its corners.
inline void sum_face_normal(Corners<Vec3> &normals, int a, int b, int c, int d, const Corners<Vec3> &p)
{
    const Vec3 bisect0 = (p[d] + p[c] - p[b] - p[a]) * 0.5;
    const Vec3 bisect1 = (p[c] + p[b] - p[d] - p[a]) * 0.5;
    const Vec3 area = bisect0.cross(bisect1) * 0.25;
    normals[a] += area;
    normals[b] += area;
    normals[c] += area;
    normals[d] += area;
}

/// The area-weighted normals at each corner.
inline void element_normals(const Corners<Vec3> &p, Corners<Vec3> &normals)
{
    normals.fill(Vec3{});
    sum_face_normal(normals, 0, 1, 2, 3, p);
    sum_face_normal(normals, 0, 4, 5, 1, p);
    sum_face_normal(normals, 1, 5, 6, 2, p);
    sum_face_normal(normals, 2, 6, 7, 3, p);
    sum_face_normal(normals, 3, 7, 4, 0, p);
    sum_face_normal(normals, 4, 7, 6, 5, p);
}

/// The volume derivative with respect to one corner's position.
inline Vec3 volume_derivative(const Vec3 &p0, const Vec3 &p1, const Vec3 &p2, const Vec3 &p3,
                              const Vec3 &p4, const Vec3 &p5)
{
    const Real twelfth = 1.0 / 12.0;
    Vec3 d;
    d.x = (p1.y + p2.y) * (p0.z + p1.z) - (p0.y + p1.y) * (p1.z + p2.z)
          + (p0.y + p4.y) * (p3.z + p4.z) - (p3.y + p4.y) * (p0.z + p4.z)
          - (p2.y + p5.y) * (p3.z + p5.z) + (p3.y + p5.y) * (p2.z + p5.z);
    d.y = -(p1.x + p2.x) * (p0.z + p1.z) + (p0.x + p1.x) * (p1.z + p2.z)
          - (p0.x + p4.x) * (p3.z + p4.z) + (p3.x + p4.x) * (p0.z + p4.z)
          + (p2.x + p5.x) * (p3.z + p5.z) - (p3.x + p5.x) * (p2.z + p5.z);
    d.z = -(p1.y + p2.y) * (p0.x + p1.x) + (p0.y + p1.y) * (p1.x + p2.x)
          - (p0.y + p4.y) * (p3.x + p4.x) + (p3.y + p4.y) * (p0.x + p4.x)
          + (p2.y + p5.y) * (p3.x + p5.x) - (p3.y + p5.y) * (p2.x + p5.x);
    return d * twelfth;
}

/// Volume derivatives at all eight corners.
inline void volume_derivatives(const Corners<Vec3> &p, Corners<Vec3> &dv)
{
    dv[0] = volume_derivative(p[1], p[2], p[3], p[4], p[5], p[7]);
    dv[3] = volume_derivative(p[0], p[1], p[2], p[7], p[4], p[6]);
    dv[2] = volume_derivative(p[3], p[0], p[1], p[6], p[7], p[5]);
    dv[1] = volume_derivative(p[2], p[3], p[0], p[5], p[6], p[4]);
    dv[4] = volume_derivative(p[7], p[6], p[5], p[0], p[3], p[1]);
    dv[5] = volume_derivative(p[4], p[7], p[6], p[1], p[0], p[2]);
    dv[6] = volume_derivative(p[5], p[4], p[7], p[2], p[1], p[3]);
    dv[7] = volume_derivative(p[6], p[5], p[4], p[3], p[2], p[0]);
}

// ---------------------------------------------------------------------------
// The domain: mesh, connectivity, boundaries, regions and initial state.
// ---------------------------------------------------------------------------

Domain::Domain(const Options &options)
    : edge_elems_{options.size}, edge_nodes_{options.size + 1},
      num_elems_{options.size * options.size * options.size},
      num_nodes_{(options.size + 1) * (options.size + 1) * (options.size + 1)},
      stoptime_{options.stop_time}
{
    const auto nodes = static_cast<std::size_t>(num_nodes_);
    const auto elems = static_cast<std::size_t>(num_elems_);
    for (auto *field : {&x_, &y_, &z_, &xd_, &yd_, &zd_, &xdd_, &ydd_, &zdd_, &fx_, &fy_, &fz_, &nodal_mass_})
        field->assign(nodes, 0.0);
    for (auto *field : {&e_, &p_, &q_, &ql_, &qq_, &v_, &volo_, &vnew_, &delv_, &vdov_, &arealg_, &ss_,
                        &elem_mass_, &dxx_, &dyy_, &dzz_, &delv_xi_, &delv_eta_, &delv_zeta_, &delx_xi_,
                        &delx_eta_, &delx_zeta_})
        field->assign(elems, 0.0);
    std::fill(v_.begin(), v_.end(), 1.0);
    corner_fx_.assign(8 * elems, 0.0);
    corner_fy_.assign(8 * elems, 0.0);
    corner_fz_.assign(8 * elems, 0.0);

    build_mesh(1.125);
    build_connectivity();
    build_boundaries();
    build_regions(options);
    build_node_corners();

    // Element volumes and masses, and the nodal masses from them.
#pragma omp parallel for
    for (Index i = 0; i < num_elems_; ++i) {
        Corners<Vec3> p;
        const Index *nodes_of = nodelist(i);
        for (int c = 0; c < 8; ++c)
            p[c] = position(nodes_of[c]);
        const Real volume = hex_volume(p);
        volo_[i] = volume;
        elem_mass_[i] = volume * kReferenceDensity;
    }
#pragma omp parallel for
    for (Index n = 0; n < num_nodes_; ++n) {
        Real mass = 0.0;
        const Index count = node_elem_count(n);
        const Index *corners = node_elem_corners(n);
        for (Index k = 0; k < count; ++k)
            mass += elem_mass_[corners[k] / 8] / 8.0;
        nodal_mass_[n] = mass;
    }

    deposit_energy();

    // The first time step: a Courant-like bound from the mesh spacing.
    const Real spacing = 1.125 / edge_elems_;
    deltatime_ = 0.5 * std::cbrt(volo_[0]) / std::sqrt(2.0 * e_[0] + kTiny);
    deltatime_ = std::min(deltatime_, spacing);
}

void Domain::build_mesh(Real width)
{
#pragma omp parallel for collapse(2)
    for (Index plane = 0; plane < edge_nodes_; ++plane) {
        for (Index row = 0; row < edge_nodes_; ++row) {
            const Real tz = width * plane / edge_elems_;
            const Real ty = width * row / edge_elems_;
            for (Index col = 0; col < edge_nodes_; ++col) {
                const Index n = (plane * edge_nodes_ + row) * edge_nodes_ + col;
                x_[n] = width * col / edge_elems_;
                y_[n] = ty;
                z_[n] = tz;
            }
        }
    }
}

void Domain::build_connectivity()
{
    nodelist_.assign(8 * static_cast<std::size_t>(num_elems_), 0);
    lxim_.assign(num_elems_, 0);
    lxip_.assign(num_elems_, 0);
    letam_.assign(num_elems_, 0);
    letap_.assign(num_elems_, 0);
    lzetam_.assign(num_elems_, 0);
    lzetap_.assign(num_elems_, 0);
    const Index en = edge_nodes_;
    const Index ee = edge_elems_;
#pragma omp parallel for
    for (Index plane = 0; plane < ee; ++plane) {
        for (Index row = 0; row < ee; ++row) {
            for (Index col = 0; col < ee; ++col) {
                const Index e = (plane * ee + row) * ee + col;
                const Index n = (plane * en + row) * en + col;
                Index *list = &nodelist_[8 * static_cast<std::size_t>(e)];
                list[0] = n;
                list[1] = n + 1;
                list[2] = n + en + 1;
                list[3] = n + en;
                list[4] = n + en * en;
                list[5] = n + en * en + 1;
                list[6] = n + en * en + en + 1;
                list[7] = n + en * en + en;
                lxim_[e] = col > 0 ? e - 1 : e;
                lxip_[e] = col + 1 < ee ? e + 1 : e;
                letam_[e] = row > 0 ? e - ee : e;
                letap_[e] = row + 1 < ee ? e + ee : e;
                lzetam_[e] = plane > 0 ? e - ee * ee : e;
                lzetap_[e] = plane + 1 < ee ? e + ee * ee : e;
            }
        }
    }
}

void Domain::build_boundaries()
{
    const Index en = edge_nodes_;
    const Index ee = edge_elems_;
    for (Index a = 0; a < en; ++a) {
        for (Index b = 0; b < en; ++b) {
            symm_x_.push_back((a * en + b) * en);
            symm_y_.push_back(a * en * en + b);
            symm_z_.push_back(a * en + b);
        }
    }
    elem_bc_.assign(num_elems_, 0u);
#pragma omp parallel for
    for (Index e = 0; e < num_elems_; ++e) {
        const Index col = e % ee;
        const Index row = (e / ee) % ee;
        const Index plane = e / (ee * ee);
        unsigned bc = 0;
        if (col == 0)
            bc |= XiMinusSymmetry;
        if (col == ee - 1)
            bc |= XiPlusFree;
        if (row == 0)
            bc |= EtaMinusSymmetry;
        if (row == ee - 1)
            bc |= EtaPlusFree;
        if (plane == 0)
            bc |= ZetaMinusSymmetry;
        if (plane == ee - 1)
            bc |= ZetaPlusFree;
        elem_bc_[e] = bc;
    }
}

void Domain::build_regions(const Options &options)
{
    // Regions of unequal sizes, drawn from a fixed sequence, so that their
    // loops are imbalanced as real multi-material problems are.
    const Index count = options.regions;
    region_elements_.assign(count, {});
    region_cost_.assign(count, 1);
    elem_region_.assign(num_elems_, 0);
    std::vector<Real> weights(count);
    for (Index r = 0; r < count; ++r)
        weights[r] = std::pow(static_cast<Real>(r + 1), static_cast<Real>(options.balance));
    const Real total = std::accumulate(weights.begin(), weights.end(), 0.0);
    std::vector<Real> cumulative(count);
    std::partial_sum(weights.begin(), weights.end(), cumulative.begin());
    unsigned state = 12345u;
    for (Index e = 0; e < num_elems_; ++e) {
        state = state * 1103515245u + 12345u;
        const Real draw = (state >> 8) / static_cast<Real>(1u << 24) * total;
        const auto found = std::lower_bound(cumulative.begin(), cumulative.end(), draw);
        const Index r = std::min<Index>(static_cast<Index>(found - cumulative.begin()), count - 1);
        elem_region_[e] = r;
        region_elements_[r].push_back(e);
    }
    for (Index r = 0; r < count; ++r)
        region_cost_[r] = (r % 3 == 2) ? options.cost * 10 : (r % 3 == 1 ? options.cost : 1);
}

void Domain::build_node_corners()
{
    node_elem_start_.assign(num_nodes_ + 1, 0);
    for (Index e = 0; e < num_elems_; ++e)
        for (int c = 0; c < 8; ++c)
            ++node_elem_start_[nodelist(e)[c] + 1];
    std::partial_sum(node_elem_start_.begin(), node_elem_start_.end(), node_elem_start_.begin());
    node_elem_corner_list_.assign(node_elem_start_.back(), 0);
    std::vector<Index> fill(node_elem_start_.begin(), node_elem_start_.end() - 1);
    for (Index e = 0; e < num_elems_; ++e)
        for (int c = 0; c < 8; ++c)
            node_elem_corner_list_[fill[nodelist(e)[c]]++] = 8 * e + c;
}

void Domain::deposit_energy()
{
    // The blast: energy in the corner element, scaled with the mesh so
    // that the solution is the same at every size.
    const Real scale = (edge_elems_ * 1.0) / 45.0;
    e_[0] = 3.948746e+7 * scale * scale * scale;
}

Real Domain::total_energy() const
{
    Real energy = 0.0;
#pragma omp parallel for reduction(+ : energy)
    for (Index i = 0; i < num_elems_; ++i)
        energy += e_[i] * elem_mass_[i];
    Real kinetic = 0.0;
#pragma omp parallel for reduction(+ : kinetic)
    for (Index n = 0; n < num_nodes_; ++n)
        kinetic += 0.5 * nodal_mass_[n] * (xd_[n] * xd_[n] + yd_[n] * yd_[n] + zd_[n] * zd_[n]);
    return energy + kinetic;
}

Real Domain::total_mass() const
{
    return std::accumulate(elem_mass_.begin(), elem_mass_.end(), 0.0);
}

std::string Domain::summary() const
{
    std::ostringstream out;
    out << num_elems_ << " elements, " << num_nodes_ << " nodes, " << region_elements_.size()
        << " regions of ";
    for (std::size_t r = 0; r < region_elements_.size(); ++r)
        out << (r ? ", " : "") << region_elements_[r].size();
    out << " elements";
    return out.str();
}

// ---------------------------------------------------------------------------
// Lagrange step, nodal part: stresses to forces, forces to accelerations,
// boundary conditions, velocities and positions.
// ---------------------------------------------------------------------------

/// The element's corners' positions.
inline void gather_positions(const Domain &domain, Index e, Corners<Vec3> &p)
{
    const Index *nodes = domain.nodelist(e);
    for (int c = 0; c < 8; ++c)
        p[c] = domain.position(nodes[c]);
}

/// The element's corners' velocities.
inline void gather_velocities(const Domain &domain, Index e, Corners<Vec3> &v)
{
    const Index *nodes = domain.nodelist(e);
    for (int c = 0; c < 8; ++c)
        v[c] = domain.velocity(nodes[c]);
}

/// Corner forces from the element's stress (pressure plus viscosity).
void integrate_stress(Domain &domain, std::vector<Real> &sigxx, std::vector<Real> &sigyy,
                      std::vector<Real> &sigzz, std::vector<Real> &determinant)
{
    const Index elems = domain.num_elements();
    auto &cfx = domain.corner_fx();
    auto &cfy = domain.corner_fy();
    auto &cfz = domain.corner_fz();
#pragma omp parallel for firstprivate(elems)
    for (Index e = 0; e < elems; ++e) {
        Corners<Vec3> p, b, normals;
        gather_positions(domain, e, p);
        determinant[e] = shape_derivatives(p, b);
        element_normals(p, normals);
        for (int c = 0; c < 8; ++c) {
            cfx[8 * e + c] = -(sigxx[e] * normals[c].x);
            cfy[8 * e + c] = -(sigyy[e] * normals[c].y);
            cfz[8 * e + c] = -(sigzz[e] * normals[c].z);
        }
    }
}

/// The hourglass modes' base vectors, one row per mode.
constexpr std::array<std::array<Real, 8>, 4> kGamma4 = {{
    {{1.0, 1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 1.0}},
    {{1.0, -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0}},
    {{1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0}},
    {{-1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0}},
}};

/// Flanagan-Belytschko hourglass control: forces that resist the
/// zero-energy modes of the element, added to the corner forces.
void hourglass_control(Domain &domain, const std::vector<Real> &determinant, Real coefficient)
{
    const Index elems = domain.num_elements();
    auto &cfx = domain.corner_fx();
    auto &cfy = domain.corner_fy();
    auto &cfz = domain.corner_fz();
    bool inverted = false;
#pragma omp parallel for reduction(|| : inverted)
    for (Index e = 0; e < elems; ++e) {
        if (determinant[e] <= 0.0) {
            inverted = true;
            continue;
        }
        Corners<Vec3> p, v, dv;
        gather_positions(domain, e, p);
        gather_velocities(domain, e, v);
        volume_derivatives(p, dv);
        const Real volume = domain.volo(e) * domain.v(e);
        const Real volinv = 1.0 / volume;
        std::array<std::array<Real, 8>, 4> hourgam;
        for (int mode = 0; mode < 4; ++mode) {
            Vec3 h{};
            for (int c = 0; c < 8; ++c)
                h += p[c] * kGamma4[mode][c];
            for (int c = 0; c < 8; ++c)
                hourgam[mode][c] = kGamma4[mode][c] - volinv * dv[c].dot(h);
        }
        const Real ss1 = domain.ss(e);
        const Real mass1 = domain.elem_mass(e);
        const Real volume13 = std::cbrt(determinant[e]);
        const Real factor = -coefficient * 0.01 * ss1 * mass1 / volume13;
        for (int c = 0; c < 8; ++c) {
            Vec3 force{};
            for (int mode = 0; mode < 4; ++mode) {
                Vec3 hv{};
                for (int k = 0; k < 8; ++k)
                    hv += v[k] * hourgam[mode][k];
                force += hv * hourgam[mode][c];
            }
            cfx[8 * e + c] += factor * force.x;
            cfy[8 * e + c] += factor * force.y;
            cfz[8 * e + c] += factor * force.z;
        }
    }
    if (inverted)
        throw std::runtime_error("an element was inverted during hourglass control");
}

/// The nodes' forces: each node gathers its corners' forces, so that no
/// two threads write the same node.
void gather_forces(Domain &domain)
{
    const Index nodes = domain.num_nodes();
    const auto &cfx = domain.corner_fx();
    const auto &cfy = domain.corner_fy();
    const auto &cfz = domain.corner_fz();
#pragma omp parallel for schedule(static)
    for (Index n = 0; n < nodes; ++n) {
        const Index count = domain.node_elem_count(n);
        const Index *corners = domain.node_elem_corners(n);
        Real fx = 0.0, fy = 0.0, fz = 0.0;
        for (Index k = 0; k < count; ++k) {
            const Index corner = corners[k];
            fx += cfx[corner];
            fy += cfy[corner];
            fz += cfz[corner];
        }
        domain.fx(n) = fx;
        domain.fy(n) = fy;
        domain.fz(n) = fz;
    }
}

/// Stress integration and hourglass control into the nodal forces.
void calc_volume_forces(Domain &domain)
{
    const Index elems = domain.num_elements();
    if (elems == 0)
        return;
    std::vector<Real> sigxx(elems), sigyy(elems), sigzz(elems), determinant(elems);
#pragma omp parallel for
    for (Index e = 0; e < elems; ++e)
        sigxx[e] = sigyy[e] = sigzz[e] = -domain.p(e) - domain.q(e);
    integrate_stress(domain, sigxx, sigyy, sigzz, determinant);
    bool bad_volume = false;
#pragma omp parallel for reduction(|| : bad_volume)
    for (Index e = 0; e < elems; ++e)
        if (determinant[e] <= 0.0)
            bad_volume = true;
    if (bad_volume)
        throw std::runtime_error("an element has a volume of zero or less");
    if (kHourglassCoefficient > 0.0)
        hourglass_control(domain, determinant, kHourglassCoefficient);
    gather_forces(domain);
}

void calc_accelerations(Domain &domain)
{
    const Index nodes = domain.num_nodes();
#pragma omp parallel for
    for (Index n = 0; n < nodes; ++n) {
        const Real mass = domain.nodal_mass(n);
        domain.xdd(n) = domain.fx(n) / mass;
        domain.ydd(n) = domain.fy(n) / mass;
        domain.zdd(n) = domain.fz(n) / mass;
    }
}

void apply_acceleration_boundaries(Domain &domain)
{
#pragma omp parallel
    {
#pragma omp for nowait
        for (std::size_t i = 0; i < domain.symmetry_x().size(); ++i)
            domain.xdd(domain.symmetry_x()[i]) = 0.0;
#pragma omp for nowait
        for (std::size_t i = 0; i < domain.symmetry_y().size(); ++i)
            domain.ydd(domain.symmetry_y()[i]) = 0.0;
#pragma omp for nowait
        for (std::size_t i = 0; i < domain.symmetry_z().size(); ++i)
            domain.zdd(domain.symmetry_z()[i]) = 0.0;
    }
}

void calc_velocities(Domain &domain, Real dt, Real cutoff)
{
    const Index nodes = domain.num_nodes();
#pragma omp parallel for
    for (Index n = 0; n < nodes; ++n) {
        Real xd = domain.xd(n) + domain.xdd(n) * dt;
        Real yd = domain.yd(n) + domain.ydd(n) * dt;
        Real zd = domain.zd(n) + domain.zdd(n) * dt;
        if (std::fabs(xd) < cutoff)
            xd = 0.0;
        if (std::fabs(yd) < cutoff)
            yd = 0.0;
        if (std::fabs(zd) < cutoff)
            zd = 0.0;
        domain.xd(n) = xd;
        domain.yd(n) = yd;
        domain.zd(n) = zd;
    }
}

void calc_positions(Domain &domain, Real dt)
{
    const Index nodes = domain.num_nodes();
#pragma omp parallel for
    for (Index n = 0; n < nodes; ++n) {
        domain.x(n) += domain.xd(n) * dt;
        domain.y(n) += domain.yd(n) * dt;
        domain.z(n) += domain.zd(n) * dt;
    }
}

void lagrange_nodal(Domain &domain)
{
    calc_volume_forces(domain);
    calc_accelerations(domain);
    apply_acceleration_boundaries(domain);
    calc_velocities(domain, domain.deltatime(), kCutoffVelocity);
    calc_positions(domain, domain.deltatime());
}

// ---------------------------------------------------------------------------
// Lagrange step, element part: kinematics, artificial viscosity, material
// properties and the equation of state.
// ---------------------------------------------------------------------------

/// New relative volumes, strain rates and characteristic lengths.
void calc_kinematics(Domain &domain, Real dt)
{
    const Index elems = domain.num_elements();
#pragma omp parallel for
    for (Index e = 0; e < elems; ++e) {
        Corners<Vec3> p, v, b;
        gather_positions(domain, e, p);
        gather_velocities(domain, e, v);
        const Real volume = hex_volume(p);
        const Real relative = volume / domain.volo(e);
        domain.vnew(e) = relative;
        domain.delv(e) = relative - domain.v(e);
        domain.arealg(e) = characteristic_length(p, volume);

        // Positions half a step back, for the strain rate at the midpoint.
        const Real half = 0.5 * dt;
        for (int c = 0; c < 8; ++c)
            p[c] -= v[c] * half;
        const Real detj = shape_derivatives(p, b);
        const Real inverse = 1.0 / detj;
        Real dxx = 0.0, dyy = 0.0, dzz = 0.0;
        for (int c = 0; c < 8; ++c) {
            dxx += b[c].x * v[c].x;
            dyy += b[c].y * v[c].y;
            dzz += b[c].z * v[c].z;
        }
        domain.dxx(e) = dxx * inverse;
        domain.dyy(e) = dyy * inverse;
        domain.dzz(e) = dzz * inverse;
    }
}

void calc_lagrange_elements(Domain &domain)
{
    const Index elems = domain.num_elements();
    if (elems == 0)
        return;
    calc_kinematics(domain, domain.deltatime());
    bool inverted = false;
#pragma omp parallel for reduction(|| : inverted)
    for (Index e = 0; e < elems; ++e) {
        const Real vdov = domain.dxx(e) + domain.dyy(e) + domain.dzz(e);
        const Real third = vdov / 3.0;
        domain.vdov(e) = vdov;
        domain.dxx(e) -= third;
        domain.dyy(e) -= third;
        domain.dzz(e) -= third;
        if (domain.vnew(e) <= 0.0)
            inverted = true;
    }
    if (inverted)
        throw std::runtime_error("an element's new volume is zero or less");
}

/// Velocity and position gradients along the element's three logical
/// directions, for the monotonic limiter.
void calc_monotonic_gradients(Domain &domain)
{
    const Index elems = domain.num_elements();
#pragma omp parallel for
    for (Index e = 0; e < elems; ++e) {
        Corners<Vec3> p, v;
        gather_positions(domain, e, p);
        gather_velocities(domain, e, v);
        const Real volume = domain.volo(e) * domain.vnew(e);
        const Real norm = 1.0 / (volume + kTiny);

        const Vec3 dj = (p[0] + p[1] + p[5] + p[4] - p[3] - p[2] - p[6] - p[7]) * -0.25;
        const Vec3 di = (p[1] + p[2] + p[6] + p[5] - p[0] - p[3] - p[7] - p[4]) * 0.25;
        const Vec3 dk = (p[4] + p[5] + p[6] + p[7] - p[0] - p[1] - p[2] - p[3]) * 0.25;

        Vec3 area = dj.cross(dk);
        domain.delx_zeta(e) = volume / std::sqrt(area.dot(area) + kTiny);
        Vec3 dv = (v[4] + v[5] + v[6] + v[7] - v[0] - v[1] - v[2] - v[3]) * 0.25;
        domain.delv_zeta(e) = area.dot(dv) * norm;

        area = di.cross(dj);
        domain.delx_xi(e) = volume / std::sqrt(area.dot(area) + kTiny);
        dv = (v[1] + v[2] + v[6] + v[5] - v[0] - v[3] - v[7] - v[4]) * 0.25;
        domain.delv_xi(e) = area.dot(dv) * norm;

        area = dk.cross(di);
        domain.delx_eta(e) = volume / std::sqrt(area.dot(area) + kTiny);
        dv = (v[0] + v[1] + v[5] + v[4] - v[3] - v[2] - v[6] - v[7]) * -0.25;
        domain.delv_eta(e) = area.dot(dv) * norm;
    }
}

/// The limiter of one direction: the ratio of the neighbours' gradients
/// to the element's, bounded as the monotonic scheme bounds it.
inline Real limiter(Real own, Real minus, Real plus)
{
    const Real norm = 1.0 / (own + kTiny);
    Real phi_minus = minus * norm;
    Real phi_plus = plus * norm;
    Real phi = 0.5 * (phi_minus + phi_plus);
    phi_minus *= kMonotonicLimiter;
    phi_plus *= kMonotonicLimiter;
    phi = std::min(phi, phi_minus);
    phi = std::min(phi, phi_plus);
    phi = std::min(phi, 1.0);
    return std::max(phi, 0.0);
}

/// The monotonic artificial viscosity of one region's elements.
void calc_monotonic_q_region(Domain &domain, const std::vector<Index> &elements, Real ptiny)
{
    const Index count = static_cast<Index>(elements.size());
#pragma omp parallel for
    for (Index k = 0; k < count; ++k) {
        const Index e = elements[k];
        const unsigned bc = domain.elem_bc(e);

        auto neighbour = [&](Index other, unsigned symmetry, unsigned free, const Real &own,
                             Real Domain::*unused) -> Real {
            (void)unused;
            if (bc & symmetry)
                return own;
            if (bc & free)
                return 0.0;
            return other >= 0 ? own : 0.0;
        };
        (void)neighbour;

        const Real xi_minus = (bc & XiMinusSymmetry) ? domain.delv_xi(e)
                              : (bc & XiMinusFree) ? 0.0
                                                     : domain.delv_xi(domain.lxim(e));
        const Real xi_plus = (bc & XiPlusSymmetry) ? domain.delv_xi(e)
                             : (bc & XiPlusFree) ? 0.0
                                                   : domain.delv_xi(domain.lxip(e));
        const Real eta_minus = (bc & EtaMinusSymmetry) ? domain.delv_eta(e)
                               : (bc & EtaMinusFree) ? 0.0
                                                       : domain.delv_eta(domain.letam(e));
        const Real eta_plus = (bc & EtaPlusSymmetry) ? domain.delv_eta(e)
                              : (bc & EtaPlusFree) ? 0.0
                                                     : domain.delv_eta(domain.letap(e));
        const Real zeta_minus = (bc & ZetaMinusSymmetry) ? domain.delv_zeta(e)
                                : (bc & ZetaMinusFree) ? 0.0
                                                         : domain.delv_zeta(domain.lzetam(e));
        const Real zeta_plus = (bc & ZetaPlusSymmetry) ? domain.delv_zeta(e)
                               : (bc & ZetaPlusFree) ? 0.0
                                                       : domain.delv_zeta(domain.lzetap(e));

        const Real phixi = limiter(domain.delv_xi(e), xi_minus, xi_plus);
        const Real phieta = limiter(domain.delv_eta(e), eta_minus, eta_plus);
        const Real phizeta = limiter(domain.delv_zeta(e), zeta_minus, zeta_plus);

        Real qlin = 0.0, qquad = 0.0;
        if (domain.vdov(e) <= 0.0) {
            Real delvxxi = domain.delv_xi(e) * domain.delx_xi(e);
            Real delvxeta = domain.delv_eta(e) * domain.delx_eta(e);
            Real delvxzeta = domain.delv_zeta(e) * domain.delx_zeta(e);
            if (delvxxi > 0.0)
                delvxxi = 0.0;
            if (delvxeta > 0.0)
                delvxeta = 0.0;
            if (delvxzeta > 0.0)
                delvxzeta = 0.0;
            const Real rho = domain.elem_mass(e) / (domain.volo(e) * domain.vnew(e));
            qlin = -kQLinearCoefficient * rho
                   * (delvxxi * (1.0 - phixi) + delvxeta * (1.0 - phieta) + delvxzeta * (1.0 - phizeta));
            qquad = kQQuadraticCoefficient * rho
                    * (delvxxi * delvxxi * (1.0 - phixi * phixi) + delvxeta * delvxeta * (1.0 - phieta * phieta)
                       + delvxzeta * delvxzeta * (1.0 - phizeta * phizeta));
        }
        domain.qq(e) = qquad + ptiny;
        domain.ql(e) = qlin;
    }
}

void calc_q(Domain &domain)
{
    if (domain.num_elements() == 0)
        return;
    calc_monotonic_gradients(domain);
    for (Index r = 0; r < domain.num_regions(); ++r) {
        if (domain.region_size(r) > 0)
            calc_monotonic_q_region(domain, domain.region(r), 0.0);
    }
    Index exceeded = -1;
#pragma omp parallel for reduction(max : exceeded)
    for (Index e = 0; e < domain.num_elements(); ++e) {
        if (domain.q(e) > kQStop)
            exceeded = std::max(exceeded, e);
    }
    if (exceeded >= 0) {
        std::ostringstream message;
        message << "the artificial viscosity of element " << exceeded << " exceeds " << kQStop;
        throw std::runtime_error(message.str());
    }
}

/// Pressure from the gamma-law equation of state, for a region's elements.
void calc_pressure(std::vector<Real> &p_new, std::vector<Real> &bvc, std::vector<Real> &pbvc,
                   const std::vector<Real> &e_old, const std::vector<Real> &compression,
                   const std::vector<Real> &vnewc, Real pmin, Real p_cut, Real eosvmax, Index length)
{
#pragma omp parallel for
    for (Index i = 0; i < length; ++i) {
        const Real c1s = kGamma - 1.0;
        bvc[i] = c1s * (compression[i] + 1.0);
        pbvc[i] = c1s;
    }
#pragma omp parallel for
    for (Index i = 0; i < length; ++i) {
        p_new[i] = bvc[i] * e_old[i];
        if (std::fabs(p_new[i]) < p_cut)
            p_new[i] = 0.0;
        if (vnewc[i] >= eosvmax)
            p_new[i] = 0.0;
        if (p_new[i] < pmin)
            p_new[i] = pmin;
    }
}

/// Energy, pressure and viscosity of a region's elements at the new volume,
/// by the predictor-corrector the hydro codes use.
void calc_energy(std::vector<Real> &p_new, std::vector<Real> &e_new, std::vector<Real> &q_new,
                 std::vector<Real> &bvc, std::vector<Real> &pbvc, const std::vector<Real> &p_old,
                 const std::vector<Real> &e_old, const std::vector<Real> &q_old,
                 const std::vector<Real> &compression, const std::vector<Real> &comp_half_step,
                 const std::vector<Real> &vnewc, const std::vector<Real> &work, const std::vector<Real> &delvc,
                 const std::vector<Real> &ql_old, const std::vector<Real> &qq_old, Real pmin, Real p_cut,
                 Real e_cut, Real q_cut, Real emin, Real rho0, Real eosvmax, Index length)
{
    std::vector<Real> p_half_step(length);
#pragma omp parallel
    {
#pragma omp for
        for (Index i = 0; i < length; ++i) {
            e_new[i] = e_old[i] - 0.5 * delvc[i] * (p_old[i] + q_old[i]) + 0.5 * work[i];
            if (e_new[i] < emin)
                e_new[i] = emin;
        }
#pragma omp single
        calc_pressure(p_half_step, bvc, pbvc, e_new, comp_half_step, vnewc, pmin, p_cut, eosvmax, length);
#pragma omp for
        for (Index i = 0; i < length; ++i) {
            const Real vhalf = 1.0 / (1.0 + comp_half_step[i]);
            if (delvc[i] > 0.0) {
                q_new[i] = 0.0;
            } else {
                Real ssc = (pbvc[i] * e_new[i] + vhalf * vhalf * bvc[i] * p_half_step[i]) / rho0;
                ssc = ssc <= kSsc ? 0.3333333e-18 : std::sqrt(ssc);
                q_new[i] = ssc * ql_old[i] + qq_old[i];
            }
            e_new[i] = e_new[i] + 0.5 * delvc[i] * (3.0 * (p_old[i] + q_old[i]) - 4.0 * (p_half_step[i] + q_new[i]));
        }
#pragma omp for
        for (Index i = 0; i < length; ++i) {
            e_new[i] += 0.5 * work[i];
            if (std::fabs(e_new[i]) < e_cut)
                e_new[i] = 0.0;
            if (e_new[i] < emin)
                e_new[i] = emin;
        }
#pragma omp single
        calc_pressure(p_new, bvc, pbvc, e_new, compression, vnewc, pmin, p_cut, eosvmax, length);
#pragma omp for
        for (Index i = 0; i < length; ++i) {
            const Real sixth = 1.0 / 6.0;
            Real q_tilde;
            if (delvc[i] > 0.0) {
                q_tilde = 0.0;
            } else {
                Real ssc = (pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0;
                ssc = ssc <= kSsc ? 0.3333333e-18 : std::sqrt(ssc);
                q_tilde = ssc * ql_old[i] + qq_old[i];
            }
            e_new[i] = e_new[i] - (7.0 * (p_old[i] + q_old[i]) - 8.0 * (p_half_step[i] + q_new[i]) + (p_new[i] + q_tilde))
                                      * delvc[i] * sixth;
            if (std::fabs(e_new[i]) < e_cut)
                e_new[i] = 0.0;
            if (e_new[i] < emin)
                e_new[i] = emin;
        }
#pragma omp single
        calc_pressure(p_new, bvc, pbvc, e_new, compression, vnewc, pmin, p_cut, eosvmax, length);
#pragma omp for
        for (Index i = 0; i < length; ++i) {
            if (delvc[i] <= 0.0) {
                Real ssc = (pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0;
                ssc = ssc <= kSsc ? 0.3333333e-18 : std::sqrt(ssc);
                q_new[i] = ssc * ql_old[i] + qq_old[i];
                if (std::fabs(q_new[i]) < q_cut)
                    q_new[i] = 0.0;
            }
        }
    }
}

/// Sound speed of a region's elements.
void calc_sound_speed(Domain &domain, const std::vector<Index> &elements, const std::vector<Real> &vnewc,
                      const std::vector<Real> &enewc, const std::vector<Real> &pnewc,
                      const std::vector<Real> &pbvc, const std::vector<Real> &bvc, Real rho0)
{
    const Index length = static_cast<Index>(elements.size());
#pragma omp parallel for
    for (Index i = 0; i < length; ++i) {
        Real ss = (pbvc[i] * enewc[i] + vnewc[i] * vnewc[i] * bvc[i] * pnewc[i]) / rho0;
        ss = ss <= kSsc ? 0.3333333e-18 : std::sqrt(ss);
        domain.ss(elements[i]) = ss;
    }
}

/// The equation of state for one region, repeated `repetitions` times as
/// costly materials are.
void eval_eos(Domain &domain, const std::vector<Index> &elements, Index repetitions)
{
    const Index length = static_cast<Index>(elements.size());
    std::vector<Real> e_old(length), delvc(length), p_old(length), q_old(length), compression(length),
        comp_half_step(length), qq_old(length), ql_old(length), work(length), p_new(length), e_new(length),
        q_new(length), bvc(length), pbvc(length), vnewc(length);

    for (Index rep = 0; rep < repetitions; ++rep) {
#pragma omp parallel
        {
#pragma omp for nowait
            for (Index i = 0; i < length; ++i) {
                const Index e = elements[i];
                e_old[i] = domain.e(e);
                delvc[i] = domain.delv(e);
                p_old[i] = domain.p(e);
                q_old[i] = domain.q(e);
                qq_old[i] = domain.qq(e);
                ql_old[i] = domain.ql(e);
                vnewc[i] = std::min(std::max(domain.vnew(e), 1.0e-10), 1.0e10);
            }
#pragma omp for
            for (Index i = 0; i < length; ++i) {
                compression[i] = 1.0 / vnewc[i] - 1.0;
                const Real vchalf = vnewc[i] - delvc[i] * 0.5;
                comp_half_step[i] = 1.0 / vchalf - 1.0;
                work[i] = 0.0;
            }
        }
        calc_energy(p_new, e_new, q_new, bvc, pbvc, p_old, e_old, q_old, compression, comp_half_step, vnewc,
                    work, delvc, ql_old, qq_old, kPressureFloor, kCutoffPressure, kCutoffEnergy, kCutoffQ,
                    kEnergyFloor, kReferenceDensity, 1.0e9, length);
    }

#pragma omp parallel for
    for (Index i = 0; i < length; ++i) {
        const Index e = elements[i];
        domain.p(e) = p_new[i];
        domain.e(e) = e_new[i];
        domain.q(e) = q_new[i];
    }
    calc_sound_speed(domain, elements, vnewc, e_new, p_new, pbvc, bvc, kReferenceDensity);
}

void apply_material_properties(Domain &domain)
{
    const Index elems = domain.num_elements();
    if (elems == 0)
        return;
    bool bad = false;
#pragma omp parallel for reduction(|| : bad)
    for (Index e = 0; e < elems; ++e) {
        Real vc = domain.v(e);
        if (vc <= 0.0)
            bad = true;
    }
    if (bad)
        throw std::runtime_error("an element's volume is zero or less before the EOS");
    for (Index r = 0; r < domain.num_regions(); ++r) {
        const Index repetitions = domain.region_cost(r);
        eval_eos(domain, domain.region(r), repetitions);
    }
}

void update_volumes(Domain &domain, Real v_cut)
{
    const Index elems = domain.num_elements();
#pragma omp parallel for
    for (Index e = 0; e < elems; ++e) {
        Real v = domain.vnew(e);
        if (std::fabs(v - 1.0) < v_cut)
            v = 1.0;
        domain.v(e) = v;
    }
}

void lagrange_elements(Domain &domain)
{
    calc_lagrange_elements(domain);
    calc_q(domain);
    apply_material_properties(domain);
    update_volumes(domain, kCutoffVolume);
}

// ---------------------------------------------------------------------------
// Time-step control.
// ---------------------------------------------------------------------------

/// The Courant constraint of a region: the smallest time a sound wave
/// takes to cross an element.
Real courant_constraint(Domain &domain, const std::vector<Index> &elements)
{
    const Index length = static_cast<Index>(elements.size());
    const Real qqc2 = 64.0 * kQQuadratic * kQQuadratic;
    Real dtcourant = 1.0e20;
#pragma omp parallel for reduction(min : dtcourant)
    for (Index i = 0; i < length; ++i) {
        const Index e = elements[i];
        Real dtf = domain.ss(e) * domain.ss(e);
        if (domain.vdov(e) < 0.0)
            dtf += qqc2 * domain.arealg(e) * domain.arealg(e) * domain.vdov(e) * domain.vdov(e);
        dtf = std::sqrt(dtf);
        dtf = domain.arealg(e) / dtf;
        if (domain.vdov(e) != 0.0)
            dtcourant = std::min(dtcourant, dtf);
    }
    return dtcourant;
}

/// The hydro constraint of a region: the time in which no element's
/// volume changes by more than the allowed fraction.
Real hydro_constraint(Domain &domain, const std::vector<Index> &elements)
{
    const Index length = static_cast<Index>(elements.size());
    Real dthydro = 1.0e20;
#pragma omp parallel for reduction(min : dthydro)
    for (Index i = 0; i < length; ++i) {
        const Index e = elements[i];
        if (domain.vdov(e) != 0.0) {
            const Real dtdvov = kMaxVolumeChange / (std::fabs(domain.vdov(e)) + 1.0e-20);
            dthydro = std::min(dthydro, dtdvov);
        }
    }
    return dthydro;
}

void calc_time_constraints(Domain &domain)
{
    domain.dtcourant() = 1.0e20;
    domain.dthydro() = 1.0e20;
    for (Index r = 0; r < domain.num_regions(); ++r) {
        domain.dtcourant() = std::min(domain.dtcourant(), courant_constraint(domain, domain.region(r)));
        domain.dthydro() = std::min(domain.dthydro(), hydro_constraint(domain, domain.region(r)));
    }
}

void time_increment(Domain &domain)
{
    Real target = domain.stoptime() - domain.time();
    if (domain.cycle() != 0) {
        Real old = domain.deltatime();
        Real next = 1.0e20;
        if (domain.dtcourant() < next)
            next = domain.dtcourant() / 2.0;
        if (domain.dthydro() < next)
            next = domain.dthydro() * 2.0 / 3.0;
        const Real ratio = next / old;
        if (ratio >= 1.0) {
            if (ratio < 1.0)
                next = old;
            else if (ratio > 1.2)
                next = old * 1.2;
        }
        domain.deltatime() = std::min(next, domain.dtmax());
    }
    if (target > domain.deltatime() && target < 4.0 * domain.deltatime() / 3.0)
        target = 2.0 * domain.deltatime() / 3.0;
    if (target < domain.deltatime())
        domain.deltatime() = target;
    domain.time() += domain.deltatime();
    ++domain.cycle();
}

// ---------------------------------------------------------------------------
// Diagnostics and verification.
// ---------------------------------------------------------------------------

/// The largest difference between the energies of elements that the
/// problem's symmetry maps onto each other.
Real symmetry_error(Domain &domain)
{
    const Index n = domain.edge_elements();
    Real worst = 0.0;
#pragma omp parallel for collapse(2) reduction(max : worst)
    for (Index j = 0; j < n; ++j) {
        for (Index k = 0; k < n; ++k) {
            for (Index i = 0; i < n; ++i) {
                const Index a = (k * n + j) * n + i;
                const Index b = (k * n + i) * n + j;
                const Index c = (i * n + j) * n + k;
                const Real eab = std::fabs(domain.e(a) - domain.e(b));
                const Real eac = std::fabs(domain.e(a) - domain.e(c));
                worst = std::max(worst, std::max(eab, eac));
            }
        }
    }
    return worst;
}

/// Statistics of one element field.
struct FieldStatistics {
    Real min = std::numeric_limits<Real>::max();
    Real max = std::numeric_limits<Real>::lowest();
    Real sum = 0.0;
    Index count = 0;

    Real mean() const { return count ? sum / count : 0.0; }
};

FieldStatistics statistics(const std::vector<Real> &values)
{
    FieldStatistics stats;
    Real lo = stats.min, hi = stats.max, sum = 0.0;
    const Index length = static_cast<Index>(values.size());
#pragma omp parallel for reduction(min : lo) reduction(max : hi) reduction(+ : sum)
    for (Index i = 0; i < length; ++i) {
        lo = std::min(lo, values[i]);
        hi = std::max(hi, values[i]);
        sum += values[i];
    }
    stats.min = lo;
    stats.max = hi;
    stats.sum = sum;
    stats.count = length;
    return stats;
}

/// A histogram of element energies over logarithmic bins.
std::map<int, Index> energy_histogram(Domain &domain)
{
    std::map<int, Index> histogram;
#pragma omp parallel
    {
        std::map<int, Index> mine;
#pragma omp for nowait
        for (Index e = 0; e < domain.num_elements(); ++e) {
            const Real energy = std::fabs(domain.e(e));
            const int bin = energy > 0.0 ? static_cast<int>(std::floor(std::log10(energy))) : -99;
            ++mine[bin];
        }
#pragma omp critical(histogram)
        for (const auto &entry : mine)
            histogram[entry.first] += entry.second;
    }
    return histogram;
}

/// Per-thread timers of the phases of a cycle.
class PhaseTimers {
public:
    using Clock = std::chrono::steady_clock;

    void start(const std::string &phase) { started_[phase] = Clock::now(); }
    void stop(const std::string &phase)
    {
        const auto found = started_.find(phase);
        if (found == started_.end())
            return;
        totals_[phase] += std::chrono::duration<double>(Clock::now() - found->second).count();
        started_.erase(found);
    }

    template <typename F>
    void time(const std::string &phase, F &&work)
    {
        start(phase);
        std::forward<F>(work)();
        stop(phase);
    }

    void report(std::ostream &out) const
    {
        std::vector<std::pair<std::string, double>> sorted(totals_.begin(), totals_.end());
        std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
        for (const auto &entry : sorted)
            out << "  " << std::setw(24) << std::left << entry.first << std::right << std::setw(10) << std::fixed
                << std::setprecision(4) << entry.second << " s\n";
    }

private:
    std::map<std::string, Clock::time_point> started_;
    std::map<std::string, double> totals_;
};

void lagrange_leapfrog(Domain &domain, PhaseTimers &timers)
{
    timers.time("lagrange nodal", [&] { lagrange_nodal(domain); });
    timers.time("lagrange elements", [&] { lagrange_elements(domain); });
    timers.time("time constraints", [&] { calc_time_constraints(domain); });
}

/// A checksum of the final state, independent of the thread count up to
/// the rounding of the reductions.
Real checksum(Domain &domain)
{
    Real sum = 0.0;
#pragma omp parallel for reduction(+ : sum)
    for (Index e = 0; e < domain.num_elements(); ++e)
        sum += domain.e(e) * (1.0 + (e % 7)) + domain.p(e) * (1.0 + (e % 5));
    return sum;
}

int run(const Options &options)
{
    Domain domain(options);
    int threads = 1;
#ifdef _OPENMP
#pragma omp parallel
    {
#pragma omp single
        threads = omp_get_num_threads();
    }
#endif
    if (!options.quiet) {
        std::cout << "hydro proxy: " << options.describe() << "\n";
        std::cout << "  " << domain.summary() << ", " << threads << " threads\n";
    }
    const Real initial_energy = domain.total_energy();
    PhaseTimers timers;
    const auto start = std::chrono::steady_clock::now();
    while (domain.time() < domain.stoptime() && domain.cycle() < options.iterations) {
        time_increment(domain);
        lagrange_leapfrog(domain, timers);
        if (options.show_progress && !options.quiet)
            std::cout << "cycle " << std::setw(5) << domain.cycle() << "  time " << std::scientific
                      << std::setprecision(6) << domain.time() << "  dt " << domain.deltatime() << std::defaultfloat
                      << "\n";
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const Real final_energy = domain.total_energy();
    const Real asymmetry = symmetry_error(domain);
    const FieldStatistics energies = statistics(std::vector<Real>([&] {
        std::vector<Real> values(domain.num_elements());
        for (Index e = 0; e < domain.num_elements(); ++e)
            values[e] = domain.e(e);
        return values;
    }()));
    if (!options.quiet) {
        std::cout << "  " << domain.cycle() << " cycles to t = " << std::scientific << std::setprecision(6)
                  << domain.time() << std::defaultfloat << " in " << std::fixed << std::setprecision(3) << elapsed
                  << " s\n";
        std::cout << "  energy " << std::scientific << std::setprecision(6) << initial_energy << " -> "
                  << final_energy << ", element energies " << energies.min << " .. " << energies.max << "\n";
        std::cout << "  symmetry error " << asymmetry << ", checksum " << checksum(domain) << std::defaultfloat
                  << "\n";
        for (const auto &entry : energy_histogram(domain))
            std::cout << "  1e" << entry.first << ": " << entry.second << " elements\n";
        timers.report(std::cout);
    }
    if (options.verify) {
        if (!std::isfinite(final_energy) || !std::isfinite(energies.max)) {
            std::cerr << "hydro proxy: the energy is not finite\n";
            return 1;
        }
    }
    return 0;
}

} // namespace hydro

int main(int argc, char **argv)
{
    try {
        return hydro::run(hydro::Options::parse(argc, argv));
    } catch (const std::invalid_argument &error) {
        std::cerr << "hydro proxy: " << error.what()
                  << "\nusage: hydro [-s SIZE] [-i ITERATIONS] [-r REGIONS] [-b BALANCE] [-c COST] [-t STOPTIME] "
                     "[-q] [-p] [--no-verify]\n";
        return 2;
    } catch (const std::exception &error) {
        std::cerr << "hydro proxy: " << error.what() << "\n";
        return 1;
    }
}
