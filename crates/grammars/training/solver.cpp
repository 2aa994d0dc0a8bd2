// shockwave -- a small Lagrangian shock-hydrodynamics proxy application.
//
// The problem is a Sedov-like blast in a cube of hexahedral elements: energy
// is deposited in the corner element at the origin and the resulting shock
// expands through a mixture of materials.  Nodal quantities (position,
// velocity, force, mass) live on the mesh vertices; thermodynamic quantities
// (energy, pressure, artificial viscosity, volume) live on the elements.
//
// The code is written for shared-memory parallelism with OpenMP.  An optional
// MPI layer (USE_MPI=1) only reduces the global time step; the decomposition
// itself is not part of this proxy.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#else
// Serial stand-ins so that the proxy still builds without -fopenmp.
inline int omp_get_thread_num() { return 0; }
inline int omp_get_num_threads() { return 1; }
inline int omp_get_max_threads() { return 1; }
inline int omp_get_level() { return 0; }
inline void omp_set_max_active_levels(int) {}
inline double omp_get_wtime() {
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}
typedef int omp_lock_t;
inline void omp_init_lock(omp_lock_t *) {}
inline void omp_destroy_lock(omp_lock_t *) {}
inline void omp_set_lock(omp_lock_t *) {}
inline void omp_unset_lock(omp_lock_t *) {}
#endif

#ifndef USE_MPI
#define USE_MPI 0
#endif

#if USE_MPI
#include <mpi.h>
#endif

#define SW_VERSION_STRING "0.9.3"
#define SW_DEFAULT_EDGE 24
#define SW_MAX_CYCLES 100000
#define SW_TINY 1.0e-36
#define SW_SQR(x) ((x) * (x))
#define SW_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SW_MAX(a, b) ((a) > (b) ? (a) : (b))
#define SW_REQUIRE(cond, what)                                              \
  do {                                                                      \
    if (!(cond)) {                                                          \
      throw std::runtime_error(std::string("requirement failed: ") + what); \
    }                                                                       \
  } while (0)

#if defined(SW_DEBUG) && SW_DEBUG > 1
#define SW_TRACE(...) std::fprintf(stderr, __VA_ARGS__)
#else
#define SW_TRACE(...) ((void)0)
#endif

namespace sw {

using Real = double;
using Index = std::int64_t;

enum class Boundary : std::uint8_t { Free = 0, Symmetric = 1, Wall = 2 };

enum Material { MAT_GAS = 0, MAT_METAL, MAT_FOAM, MAT_COUNT };

enum class Face : int { XLow, XHigh, YLow, YHigh, ZLow, ZHigh };

constexpr int kNodesPerElem = 8;
constexpr int kFaces = 6;
constexpr Real kGamma[MAT_COUNT] = {1.4, 3.0, 1.15};
constexpr Real kRefDensity[MAT_COUNT] = {1.0, 7.8, 0.25};
constexpr Real kPressureFloor = 1.0e-9;
constexpr Real kQLinear = 0.06;
constexpr Real kQQuadratic = 2.0;

template <typename T>
constexpr T cube(T x) {
  return x * x * x;
}

template <int N>
struct Factorial {
  static constexpr long value = N * Factorial<N - 1>::value;
};

template <>
struct Factorial<0> {
  static constexpr long value = 1;
};

template <bool Wide>
struct StencilTag {
  static constexpr int width = Wide ? 2 : 1;
};

// The parentheses keep the comparison from closing the argument list.
using HexStencil = StencilTag<(kNodesPerElem > 4)>;
static_assert(Factorial<3>::value < Factorial<4>::value, "factorial table");
static_assert(HexStencil::width == 2, "hexahedra use the wide stencil");

inline const char *material_name(Material m) {
  switch (m) {
    case MAT_GAS:
      return "gas";
    case MAT_METAL:
      return "metal";
    case MAT_FOAM:
      return "foam";
    default:
      return "unknown";
  }
}

inline const char *boundary_name(Boundary b) {
  switch (b) {
    case Boundary::Free: return "free";
    case Boundary::Symmetric: return "symmetric";
    case Boundary::Wall: return "wall";
  }
  return "?";
}

namespace util {

class WallTimer {
 public:
  WallTimer() : start_(omp_get_wtime()), accumulated_(0.0), running_(true) {}

  void stop() {
    if (running_) {
      accumulated_ += omp_get_wtime() - start_;
      running_ = false;
    }
  }

  double seconds() const {
    return running_ ? accumulated_ + (omp_get_wtime() - start_) : accumulated_;
  }

 private:
  double start_;
  double accumulated_;
  bool running_;
};

// A thin owner of an OpenMP lock; copying one would be a bug.
class Mutex {
 public:
  Mutex() { omp_init_lock(&lock_); }
  ~Mutex() { omp_destroy_lock(&lock_); }
  Mutex(const Mutex &) = delete;
  Mutex &operator=(const Mutex &) = delete;

  void lock() { omp_set_lock(&lock_); }
  void unlock() { omp_unset_lock(&lock_); }

 private:
  omp_lock_t lock_;
};

template <typename Lockable>
class Guard {
 public:
  explicit Guard(Lockable &target) : target_(target) { target_.lock(); }
  ~Guard() { target_.unlock(); }
  Guard(const Guard &) = delete;
  Guard &operator=(const Guard &) = delete;

 private:
  Lockable &target_;
};

template <typename T>
void parallel_fill(std::vector<T> &v, const T &value) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(v.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    v[i] = value;
}

template <typename T>
T max_abs(const std::vector<T> &v) {
  T result = T(0);
  const std::size_t n = v.size();
#pragma omp parallel for reduction(max : result)
  for (std::size_t i = 0; i < n; ++i) {
    const T a = v[i] < T(0) ? -v[i] : v[i];
    if (a > result) result = a;
  }
  return result;
}

template <typename T, typename BinaryOp>
T tree_combine(const T *first, std::size_t count, T identity, BinaryOp op) {
  if (count == 0) return identity;
  if (count == 1) return first[0];
  if (count < 2048) {
    T acc = identity;
    for (std::size_t i = 0; i < count; ++i) acc = op(acc, first[i]);
    return acc;
  }
  T left = identity, right = identity;
  const std::size_t half = count >> 1;
#pragma omp task shared(left) firstprivate(first, half, identity, op)
  left = tree_combine(first, half, identity, op);
#pragma omp task shared(right) firstprivate(first, half, count, identity, op)
  right = tree_combine(first + half, count - half, identity, op);
#pragma omp taskwait
  return op(left, right);
}

inline std::uint64_t mix_bits(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace util

template <typename T>
struct Vec3 {
  T x, y, z;

  constexpr Vec3() : x(T(0)), y(T(0)), z(T(0)) {}
  constexpr Vec3(T a, T b, T c) : x(a), y(b), z(c) {}

  Vec3 &operator+=(const Vec3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  Vec3 &operator-=(const Vec3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  Vec3 &operator*=(T s) { x *= s; y *= s; z *= s; return *this; }
  Vec3 operator-() const { return Vec3(-x, -y, -z); }

  T &operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
  const T &operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }

  T norm2() const { return x * x + y * y + z * z; }
  T norm() const { return std::sqrt(norm2()); }
};

template <typename T>
inline Vec3<T> operator+(Vec3<T> a, const Vec3<T> &b) {
  a += b;
  return a;
}

template <typename T>
inline Vec3<T> operator-(Vec3<T> a, const Vec3<T> &b) {
  a -= b;
  return a;
}

template <typename T>
inline Vec3<T> operator*(T s, Vec3<T> v) {
  v *= s;
  return v;
}

template <typename T>
inline T dot(const Vec3<T> &a, const Vec3<T> &b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

template <typename T>
inline Vec3<T> cross(const Vec3<T> &a, const Vec3<T> &b) {
  return Vec3<T>(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
                 a.x * b.y - a.y * b.x);
}

template <typename T>
std::ostream &operator<<(std::ostream &os, const Vec3<T> &v) {
  return os << '(' << v.x << ", " << v.y << ", " << v.z << ')';
}

using Vec = Vec3<Real>;

// Dense fixed-size matrix used for the hourglass mode projections.
template <typename T, std::size_t Rows, std::size_t Cols>
class Matrix {
 public:
  Matrix() { data_.fill(T(0)); }

  T &operator()(std::size_t r, std::size_t c) { return data_[r * Cols + c]; }
  const T &operator()(std::size_t r, std::size_t c) const {
    return data_[r * Cols + c];
  }

  template <std::size_t K>
  Matrix<T, Rows, K> operator*(const Matrix<T, Cols, K> &rhs) const {
    Matrix<T, Rows, K> out;
    for (std::size_t i = 0; i < Rows; ++i)
      for (std::size_t k = 0; k < Cols; ++k) {
        const T aik = (*this)(i, k);
        for (std::size_t j = 0; j < K; ++j) out(i, j) += aik * rhs(k, j);
      }
    return out;
  }

 private:
  std::array<T, Rows * Cols> data_;
};

// Hourglass base vectors: four modes on the eight corners of a hexahedron.
using ModeMatrix = Matrix<Real, kNodesPerElem, 4>;
using PackedCorners = std::array<Real, (kNodesPerElem < 8 ? 8 : kNodesPerElem)>;

inline ModeMatrix hourglass_modes() {
  static const int signs[4][kNodesPerElem] = {{1, 1, -1, -1, -1, -1, 1, 1},
                                              {1, -1, -1, 1, -1, 1, 1, -1},
                                              {1, -1, 1, -1, 1, -1, 1, -1},
                                              {-1, 1, -1, 1, 1, -1, 1, -1}};
  ModeMatrix g;
  for (int m = 0; m < 4; ++m)
    for (int c = 0; c < kNodesPerElem; ++c) g(c, m) = Real(signs[m][c]);
  return g;
}

struct Params {
  int nx = SW_DEFAULT_EDGE;
  int ny = SW_DEFAULT_EDGE;
  int nz = SW_DEFAULT_EDGE;
  int maxCycles = 400;
  int numRegions = 11;
  int reportEvery = 50;
  Real length = 1.125;
  Real stopTime = 1.0e-2;
  Real cfl = 0.5;
  Real hourglassCoef = 3.0e-2;
  Real initialEnergy = 3.948746e+7;
  bool verbose = false;
  std::array<Boundary, kFaces> faces{{Boundary::Symmetric, Boundary::Free,
                                      Boundary::Symmetric, Boundary::Free,
                                      Boundary::Symmetric, Boundary::Free}};
  std::string label = "sedov";
};

struct Region {
  int id = 0;
  Material material = MAT_GAS;
  std::vector<Index> elems;
  double cost = 0.0;
  int repeat = 1;

  bool operator<(const Region &other) const { return cost < other.cost; }
};

// What one cycle measured; zero until the cycle fills it in.
struct CycleStats {
  Real dt{}, totalEnergy{}, maxPressure{};
  Real minVolume{};
  Index clampedElems{};
};

class Mesh {
 public:
  Mesh(int nx, int ny, int nz, Real length)
      : nx_(nx),
        ny_(ny),
        nz_(nz),
        length_(length),
        numElem_(static_cast<Index>(nx) * ny * nz),
        numNode_(static_cast<Index>(nx + 1) * (ny + 1) * (nz + 1)),
        coords_(static_cast<std::size_t>(numNode_)),
        connectivity_(static_cast<std::size_t>(numElem_ * kNodesPerElem)) {
    SW_REQUIRE(nx > 0 && ny > 0 && nz > 0, "mesh edges must be positive");
    build();
  }

  Index numElem() const { return numElem_; }
  Index numNode() const { return numNode_; }
  int nx() const { return nx_; }
  int ny() const { return ny_; }
  int nz() const { return nz_; }

  inline Index nodeIndex(int i, int j, int k) const {
    return (static_cast<Index>(k) * (ny_ + 1) + j) * (nx_ + 1) + i;
  }

  inline Index elemIndex(int i, int j, int k) const {
    return (static_cast<Index>(k) * ny_ + j) * nx_ + i;
  }

  const Index *elemNodes(Index e) const {
    return connectivity_.data() + e * kNodesPerElem;
  }

  Vec &coord(Index n) { return coords_[static_cast<std::size_t>(n)]; }
  const Vec &coord(Index n) const { return coords_[static_cast<std::size_t>(n)]; }

  std::pair<Index, Index> cornerRange(Index node) const {
    return {cornerStart_[node], cornerStart_[node + 1]};
  }
  Index corner(Index slot) const { return corners_[slot]; }

  std::vector<Index> faceNodes(Face f) const;
  void centers(std::vector<Vec> &out) const;
  Real elementVolume(Index e) const;

 private:
  void build();
  void buildCornerLists();

  int nx_, ny_, nz_;
  Real length_;
  Index numElem_;
  Index numNode_;
  std::vector<Vec> coords_;
  std::vector<Index> connectivity_;
  std::vector<Index> cornerStart_;
  std::vector<Index> corners_;
};

void Mesh::build() {
  const Real hx = length_ / nx_;
  const Real hy = length_ / ny_;
  const Real hz = length_ / nz_;
  const int nx = nx_, ny = ny_, nz = nz_;

#pragma omp parallel
  {
#pragma omp for collapse(2) schedule(static) nowait
    for (int k = 0; k <= nz; ++k)
      for (int j = 0; j <= ny; ++j) {
        for (int i = 0; i <= nx; ++i)
          coords_[nodeIndex(i, j, k)] = Vec(i * hx, j * hy, k * hz);
      }

#pragma omp for collapse(3)
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          static const int corner[kNodesPerElem][3] = {
              {0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
              {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
          const Index base = elemIndex(i, j, k) * kNodesPerElem;
          for (int n = 0; n < kNodesPerElem; ++n)
            connectivity_[base + n] =
                nodeIndex(i + corner[n][0], j + corner[n][1], k + corner[n][2]);
        }
  }

  buildCornerLists();
}

// For every node, the list of element corners that touch it, so that the
// force gather can run over nodes without write conflicts.
void Mesh::buildCornerLists() {
  std::vector<Index> counts(static_cast<std::size_t>(numNode_ + 1), 0);

#pragma omp parallel for
  for (Index e = 0; e < numElem_; ++e) {
    const Index *nodes = elemNodes(e);
    for (int c = 0; c < kNodesPerElem; ++c) {
#pragma omp atomic
      counts[nodes[c] + 1]++;
    }
  }

  std::partial_sum(counts.begin(), counts.end(), counts.begin());
  cornerStart_ = counts;
  corners_.assign(static_cast<std::size_t>(counts.back()), -1);
  std::vector<Index> cursor(counts.begin(), counts.end() - 1);

#pragma omp parallel for schedule(static, 64)
  for (Index e = 0; e < numElem_; ++e) {
    for (int c = 0; c < kNodesPerElem; ++c) {
      const Index n = connectivity_[e * kNodesPerElem + c];
      Index slot;
#pragma omp atomic capture
      slot = cursor[n]++;
      corners_[slot] = e * kNodesPerElem + c;
    }
  }

  // The fill order depends on thread timing; sort so runs are reproducible.
#pragma omp parallel for schedule(dynamic, 512)
  for (Index n = 0; n < numNode_; ++n)
    std::sort(corners_.begin() + cornerStart_[n],
              corners_.begin() + cornerStart_[n + 1]);
}

std::vector<Index> Mesh::faceNodes(Face f) const {
  std::vector<Index> nodes;
  switch (f) {
    case Face::XLow:
    case Face::XHigh: {
      const int i = (f == Face::XLow) ? 0 : nx_;
      nodes.reserve(static_cast<std::size_t>((ny_ + 1) * (nz_ + 1)));
      for (int k = 0; k <= nz_; ++k)
        for (int j = 0; j <= ny_; ++j) nodes.push_back(nodeIndex(i, j, k));
      break;
    }
    case Face::YLow:
    case Face::YHigh: {
      const int j = (f == Face::YLow) ? 0 : ny_;
      for (int k = 0; k <= nz_; ++k)
        for (int i = 0; i <= nx_; ++i) nodes.push_back(nodeIndex(i, j, k));
      break;
    }
    default: {
      const int k = (f == Face::ZLow) ? 0 : nz_;
      for (int j = 0; j <= ny_; ++j)
        for (int i = 0; i <= nx_; ++i) nodes.push_back(nodeIndex(i, j, k));
    }
  }
  return nodes;
}

void Mesh::centers(std::vector<Vec> &out) const {
  out.resize(static_cast<std::size_t>(numElem_));
#pragma omp parallel for schedule(static)
  for (Index e = 0; e < numElem_; ++e) {
    const Index *nodes = elemNodes(e);
    Vec c;
    for (int k = 0; k < kNodesPerElem; ++k) c += coords_[nodes[k]];
    out[e] = Real(1.0 / kNodesPerElem) * c;
  }
}

// Volume of a (possibly distorted) hexahedron from the triple products of
// its diagonals, the usual trilinear approximation.
Real Mesh::elementVolume(Index e) const {
  const Index *n = elemNodes(e);
  const Vec &p0 = coords_[n[0]], &p1 = coords_[n[1]], &p2 = coords_[n[2]];
  const Vec &p3 = coords_[n[3]], &p4 = coords_[n[4]], &p5 = coords_[n[5]];
  const Vec &p6 = coords_[n[6]], &p7 = coords_[n[7]];

  const Vec d61 = p6 - p1, d70 = p7 - p0, d63 = p6 - p3;
  const Vec d20 = p2 - p0, d50 = p5 - p0, d64 = p6 - p4;
  const Vec d31 = p3 - p1, d72 = p7 - p2, d43 = p4 - p3;
  const Vec d57 = p5 - p7, d14 = p1 - p4, d25 = p2 - p5;

  Real v = dot(d31 + d72, cross(d63, d20)) + dot(d43 + d57, cross(d64, d70)) +
           dot(d14 + d25, cross(d61, d50));
  return v / Real(12.0);
}

class Domain {
 public:
  explicit Domain(const Params &p);
  ~Domain() = default;

  void initialize();
  CycleStats advance();
  bool finished() const {
    return time_ >= params_.stopTime || cycle_ >= params_.maxCycles;
  }

  int cycle() const { return cycle_; }
  Real time() const { return time_; }
  const Mesh &mesh() const { return mesh_; }
  const std::vector<Vec> &velocities() const { return velocity_; }
  const std::vector<std::string> &log() const { return messages_; }

  Real totalEnergy() const;
  void histogramPressure(std::vector<Index> &bins, Real pmax) const;
  void writeSummary(std::ostream &os) const;

 private:
  void computeVolumes(CycleStats &stats);
  void computeCornerForces();
  void addHourglassForces();
  void gatherForces();
  void applyBoundaries();
  void moveNodes(Real dt);
  void updateMaterials();
  void evaluateRegion(const Region &r);
  Real stableTimeStep() const;
  void note(const std::string &msg);

  Params params_;
  Mesh mesh_;
  // Nodal fields.
  std::vector<Vec> velocity_, force_, cornerForce_;
  std::vector<Real> nodalMass_;
  // Element fields; volumes are absolute, volumeRate_ is relative.
  std::vector<Real> volume_, volumeRef_, energy_, pressure_;
  std::vector<Real> viscosity_, soundSpeed_, volumeRate_;
  std::vector<Region> regions_;
  std::vector<int> regionOf_;
  Real time_;
  Real dt_;
  int cycle_;
  mutable util::Mutex logLock_;
  std::vector<std::string> messages_;
};

Domain::Domain(const Params &p)
    : params_(p),
      mesh_(p.nx, p.ny, p.nz, p.length),
      velocity_(mesh_.numNode()),
      force_(mesh_.numNode()),
      cornerForce_(mesh_.numElem() * kNodesPerElem),
      nodalMass_(mesh_.numNode(), 0.0),
      volume_(mesh_.numElem(), 0.0),
      volumeRef_(mesh_.numElem(), 0.0),
      energy_(mesh_.numElem(), 0.0),
      pressure_(mesh_.numElem(), 0.0),
      viscosity_(mesh_.numElem(), 0.0),
      soundSpeed_(mesh_.numElem(), 0.0),
      volumeRate_(mesh_.numElem(), 0.0),
      regionOf_(mesh_.numElem(), 0),
      time_(0.0),
      dt_(1.0e-7),
      cycle_(0) {
  if (p.numRegions < 1 || p.numRegions > 4096)
    throw std::invalid_argument("region count out of range: " +
                                std::to_string(p.numRegions));
}

void Domain::note(const std::string &msg) {
  util::Guard<util::Mutex> hold(logLock_);
  messages_.push_back(msg);
}

void Domain::initialize() {
  const Index ne = mesh_.numElem();

  // Reference volumes and nodal masses (unit density everywhere at first).
#pragma omp parallel for schedule(static)
  for (Index e = 0; e < ne; ++e) {
    volumeRef_[e] = mesh_.elementVolume(e);
    volume_[e] = volumeRef_[e];
  }

  for (Index e = 0; e < ne; ++e) {
    const Index *nodes = mesh_.elemNodes(e);
    const Real share = volumeRef_[e] / kNodesPerElem;
    for (int c = 0; c < kNodesPerElem; ++c) nodalMass_[nodes[c]] += share;
  }

  // Deterministic pseudo-random region assignment; regions get very
  // different costs so the task scheduling has something to balance.
  regions_.resize(static_cast<std::size_t>(params_.numRegions));
  for (int r = 0; r < params_.numRegions; ++r) {
    Region &reg = regions_[r];
    reg.id = r;
    reg.material = static_cast<Material>(r % MAT_COUNT);
    reg.repeat = 1 + (r % 5 == 0 ? 10 : r % 3);
  }

  for (Index e = 0; e < ne; ++e) {
    const std::uint64_t h = util::mix_bits(static_cast<std::uint64_t>(e) + 17);
    const int r = static_cast<int>(h % static_cast<std::uint64_t>(params_.numRegions));
    regionOf_[e] = r;
    regions_[r].elems.push_back(e);
  }

  for (auto &reg : regions_)
    reg.cost = static_cast<double>(reg.elems.size()) * reg.repeat *
               (reg.material == MAT_METAL ? 2.5 : 1.0);

  // Most expensive regions first so they start early in the task pool.
  std::sort(regions_.begin(), regions_.end(),
            [](const Region &a, const Region &b) { return b < a; });

  energy_[mesh_.elemIndex(0, 0, 0)] = params_.initialEnergy;

  if (params_.verbose) {
    for (const Region &reg : regions_)
      note("region " + std::to_string(reg.id) + " (" + material_name(reg.material) +
           "): " + std::to_string(reg.elems.size()) + " elements");
  }

  std::ostringstream msg;
  msg << "initialized " << ne << " elements in " << regions_.size()
      << " regions, " << omp_get_max_threads() << " threads";
  note(msg.str());
}

void Domain::computeVolumes(CycleStats &stats) {
  const Index ne = mesh_.numElem();
  Real vmin = std::numeric_limits<Real>::max();
  Index clamped = 0;
  bool inverted = false;

#pragma omp parallel for reduction(min : vmin) reduction(+ : clamped) \
    schedule(static)
  for (Index e = 0; e < ne; ++e) {
    const Real vnew = mesh_.elementVolume(e) / volumeRef_[e];
    if (vnew <= 0.0) {
#pragma omp critical(inversion)
      inverted = true;
    }
    Real v = vnew;
    if (std::fabs(v - 1.0) < 1.0e-10) {
      v = 1.0;
      ++clamped;
    }
    volumeRate_[e] = (v - volume_[e] / volumeRef_[e]) / dt_;
    volume_[e] = v * volumeRef_[e];
    vmin = SW_MIN(vmin, v);
  }

  if (inverted)
    throw std::runtime_error("element volume became non-positive at cycle " +
                             std::to_string(cycle_));
  stats.minVolume = vmin;
  stats.clampedElems = clamped;
}

void Domain::computeCornerForces() {
  const Index ne = mesh_.numElem();
  // Face-to-corner table: the four corners of each face, counter-clockwise
  // seen from outside the element.
  static const int faceCorners[kFaces][4] = {{0, 4, 7, 3}, {1, 2, 6, 5},
                                             {0, 1, 5, 4}, {3, 7, 6, 2},
                                             {0, 3, 2, 1}, {4, 5, 6, 7}};

#pragma omp parallel for schedule(static)
  for (Index e = 0; e < ne; ++e) {
    const Index *nodes = mesh_.elemNodes(e);
    const Real sigma = -(pressure_[e] + viscosity_[e]);
    Vec *cf = &cornerForce_[e * kNodesPerElem];

    for (int c = 0; c < kNodesPerElem; ++c) cf[c] = Vec();

    for (int f = 0; f < kFaces; ++f) {
      const int *fc = faceCorners[f];
      const Vec &a = mesh_.coord(nodes[fc[0]]);
      const Vec &b = mesh_.coord(nodes[fc[1]]);
      const Vec &c = mesh_.coord(nodes[fc[2]]);
      const Vec &d = mesh_.coord(nodes[fc[3]]);
      // Quarter of the face area vector goes to each of its corners.
      const Vec area = Real(0.125) * cross(c - a, d - b);
      for (int q = 0; q < 4; ++q) cf[fc[q]] -= sigma * area;
    }
  }
}

void Domain::addHourglassForces() {
  const Real coef = params_.hourglassCoef;
  if (coef <= 0.0) return;

  const ModeMatrix gamma = hourglass_modes();
  const Index ne = mesh_.numElem();

#pragma omp parallel
  {
    // Per-thread scratch, allocated once per region rather than per element.
    Matrix<Real, 3, kNodesPerElem> vel;
    Matrix<Real, 3, 4> modes;

#pragma omp for schedule(guided)
    for (Index e = 0; e < ne; ++e) {
      const Index *nodes = mesh_.elemNodes(e);
      for (int c = 0; c < kNodesPerElem; ++c) {
        const Vec &v = velocity_[nodes[c]];
        vel(0, c) = v.x;
        vel(1, c) = v.y;
        vel(2, c) = v.z;
      }

      modes = vel * gamma;
      const Real scale =
          -coef * kRefDensity[regionOf_[e] % MAT_COUNT] * soundSpeed_[e] *
          std::cbrt(volume_[e] * volume_[e]);

      Vec *cf = &cornerForce_[e * kNodesPerElem];
      for (int c = 0; c < kNodesPerElem; ++c) {
        Real fx = 0.0, fy = 0.0, fz = 0.0;
#pragma omp simd reduction(+ : fx, fy, fz)
        for (int m = 0; m < 4; ++m) {
          fx += gamma(c, m) * modes(0, m);
          fy += gamma(c, m) * modes(1, m);
          fz += gamma(c, m) * modes(2, m);
        }
        cf[c] += scale * Vec(fx, fy, fz);
      }
    }
  }
}

void Domain::gatherForces() {
  const Index nn = mesh_.numNode();
#pragma omp parallel for schedule(static)
  for (Index n = 0; n < nn; ++n) {
    Vec sum;
    const auto range = mesh_.cornerRange(n);
    for (Index s = range.first; s < range.second; ++s)
      sum += cornerForce_[mesh_.corner(s)];
    force_[n] = sum;
  }
}

void Domain::applyBoundaries() {
  const auto &faces = params_.faces;

  auto fix_component = [this](const std::vector<Index> &nodes, int axis,
                              Boundary kind) {
    if (kind == Boundary::Free) return;
    const std::size_t count = nodes.size();
#pragma omp parallel for if (count > 4096)
    for (std::size_t i = 0; i < count; ++i) {
      Vec &v = velocity_[nodes[i]];
      Vec &f = force_[nodes[i]];
      if (kind == Boundary::Symmetric) {
        v[axis] = 0.0;
        f[axis] = 0.0;
      } else {
        v = Vec();
        f = Vec();
      }
    }
  };

  // Each pair of opposite faces is independent of the others.
#pragma omp parallel sections
  {
#pragma omp section
    {
      fix_component(mesh_.faceNodes(Face::XLow), 0, faces[0]);
      fix_component(mesh_.faceNodes(Face::XHigh), 0, faces[1]);
    }
#pragma omp section
    {
      fix_component(mesh_.faceNodes(Face::YLow), 1, faces[2]);
      fix_component(mesh_.faceNodes(Face::YHigh), 1, faces[3]);
    }
#pragma omp section
    {
      fix_component(mesh_.faceNodes(Face::ZLow), 2, faces[4]);
      fix_component(mesh_.faceNodes(Face::ZHigh), 2, faces[5]);
    }
  }
}

void Domain::moveNodes(Real dt) {
  const Index nn = mesh_.numNode();
  const Real cutoff = 1.0e-7;

#pragma omp parallel for simd schedule(static)
  for (Index n = 0; n < nn; ++n) {
    const Real inv = 1.0 / (nodalMass_[n] + SW_TINY);
    Vec v = velocity_[n] + (dt * inv) * force_[n];
    if (std::fabs(v.x) < cutoff) v.x = 0.0;
    if (std::fabs(v.y) < cutoff) v.y = 0.0;
    if (std::fabs(v.z) < cutoff) v.z = 0.0;
    velocity_[n] = v;
    mesh_.coord(n) += dt * v;
  }
}

// Equation of state and artificial viscosity for one region.  Regions are
// evaluated as tasks; within a region the element loop is serial.
void Domain::evaluateRegion(const Region &r) {
  const Real gamma = kGamma[r.material];
  const Real rho0 = kRefDensity[r.material];

  auto eos = [gamma](Real e, Real relVolume) {
    const Real p = (gamma - 1.0) * e / relVolume;
    return p < kPressureFloor ? 0.0 : p;
  };

  for (int pass = 0; pass < r.repeat; ++pass) {
    for (const Index e : r.elems) {
      const Real relv = volume_[e] / volumeRef_[e];
      const Real divv = volumeRate_[e];
      Real q = 0.0;
      if (divv < 0.0) {
        const Real h = std::cbrt(volume_[e]);
        const Real dv = h * divv;
        q = rho0 / relv * (kQQuadratic * SW_SQR(dv) - kQLinear * soundSpeed_[e] * dv);
      }
      // Energy update from p dV work, then new pressure.
      Real en = energy_[e] - 0.5 * (pressure_[e] + q) * divv * dt_ * volumeRef_[e];
      if (en < 0.0) en = 0.0;
      energy_[e] = en;
      viscosity_[e] = q;
      pressure_[e] = eos(en / volumeRef_[e], relv);
      soundSpeed_[e] =
          std::sqrt(SW_MAX(gamma * pressure_[e] * relv / rho0, 1.0e-12));
    }
  }
}

void Domain::updateMaterials() {
#pragma omp parallel
  {
#pragma omp single nowait
    {
      for (const Region &r : regions_) {
        const Region *rp = &r;
#pragma omp task firstprivate(rp) untied
        evaluateRegion(*rp);
      }
#pragma omp taskwait
    }
  }
}

Real Domain::stableTimeStep() const {
  const Index ne = mesh_.numElem();
  Real dtCourant = std::numeric_limits<Real>::max();
  Real dtVolume = std::numeric_limits<Real>::max();
  const Real cfl = params_.cfl;

#pragma omp parallel
  {
    Real localCourant = dtCourant;
    Real localVolume = dtVolume;

#pragma omp for nowait
    for (Index e = 0; e < ne; ++e) {
      const Real h = std::cbrt(volume_[e]);
      const Real c = soundSpeed_[e] + 2.0 * kQQuadratic * std::fabs(volumeRate_[e]) * h;
      if (c > 0.0) localCourant = SW_MIN(localCourant, cfl * h / c);
      if (volumeRate_[e] != 0.0)
        localVolume = SW_MIN(localVolume, 0.1 / std::fabs(volumeRate_[e]));
    }

#pragma omp critical(dt_merge)
    {
      if (localCourant < dtCourant) dtCourant = localCourant;
      if (localVolume < dtVolume) dtVolume = localVolume;
    }
  }

  Real dt = SW_MIN(dtCourant, dtVolume);
#if USE_MPI
  Real global = dt;
  MPI_Allreduce(&dt, &global, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  dt = global;
#endif
  return dt;
}

CycleStats Domain::advance() {
  CycleStats stats;

  computeCornerForces();
  addHourglassForces();
  gatherForces();
  applyBoundaries();

  // Limit the growth of the step to 20% per cycle.
  Real dt = stableTimeStep();
  dt = SW_MIN(dt, 1.2 * dt_);
  if (time_ + dt > params_.stopTime) dt = params_.stopTime - time_;
  if (!(dt > 0.0)) throw std::runtime_error("time step collapsed");
  dt_ = dt;

  moveNodes(dt);
  computeVolumes(stats);
  updateMaterials();

  time_ += dt;
  ++cycle_;

  stats.dt = dt;
  stats.totalEnergy = totalEnergy();
  stats.maxPressure = util::max_abs(pressure_);
  return stats;
}

Real Domain::totalEnergy() const {
  const Index ne = mesh_.numElem();
  const Index nn = mesh_.numNode();
  Real internal = 0.0, kinetic = 0.0;

#pragma omp parallel
  {
#pragma omp for reduction(+ : internal) nowait
    for (Index e = 0; e < ne; ++e) internal += energy_[e];

#pragma omp for reduction(+ : kinetic)
    for (Index n = 0; n < nn; ++n)
      kinetic += 0.5 * nodalMass_[n] * velocity_[n].norm2();
  }
  return internal + kinetic;
}

void Domain::histogramPressure(std::vector<Index> &bins, Real pmax) const {
  const int nbins = static_cast<int>(bins.size());
  std::fill(bins.begin(), bins.end(), 0);
  if (nbins == 0 || pmax <= 0.0) return;
  const Index ne = mesh_.numElem();

#pragma omp parallel
  {
    std::vector<Index> local(static_cast<std::size_t>(nbins), 0);

#pragma omp for schedule(static) nowait
    for (Index e = 0; e < ne; ++e) {
      int b = static_cast<int>(pressure_[e] / pmax * nbins);
      b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
      local[b]++;
    }

    for (int b = 0; b < nbins; ++b) {
      if (local[b] == 0) continue;
#pragma omp atomic update
      bins[b] += local[b];
    }
  }
}

void Domain::writeSummary(std::ostream &os) const {
  os << std::setw(8) << cycle_ << "  t = " << std::scientific
     << std::setprecision(5) << time_ << "  dt = " << dt_
     << "  E = " << totalEnergy() << std::defaultfloat << '\n';
}

// Diagnostics pass: run two independent analyses concurrently, each of which
// is itself parallel (nested regions).
struct Diagnostics {
  Real centroidSpread = 0.0;
  Real radialMomentum = 0.0;
  std::vector<Index> pressureBins;
  int outerThreads = 0;
  int innerThreads = 0;
};

Diagnostics analyze(const Domain &dom, const std::vector<Vec> &velocity) {
  Diagnostics diag;
  diag.pressureBins.assign(16, 0);
  std::vector<Vec> centers;
  dom.mesh().centers(centers);
  const Index ne = static_cast<Index>(centers.size());
  const Index nn = static_cast<Index>(velocity.size());

  omp_set_max_active_levels(2);

#pragma omp parallel num_threads(2) shared(diag, centers)
  {
    const int which = omp_get_thread_num();
#pragma omp master
    diag.outerThreads = omp_get_num_threads();

    if (which == 0) {
      Real spread = 0.0;
#pragma omp parallel for reduction(+ : spread)
      for (Index e = 0; e < ne; ++e) spread += centers[e].norm2();
      diag.centroidSpread = std::sqrt(spread / SW_MAX(ne, Index(1)));
    } else {
      Real momentum = 0.0;
      int inner = 0;
#pragma omp parallel reduction(+ : momentum)
      {
#pragma omp single
        inner = omp_get_num_threads();
#pragma omp for
        for (Index n = 0; n < nn; ++n) {
          const Vec &x = dom.mesh().coord(n);
          const Real r = x.norm();
          if (r > 0.0) momentum += dot(velocity[n], x) / r;
        }
      }
      diag.radialMomentum = momentum;
      diag.innerThreads = inner;
    }

#pragma omp barrier

#pragma omp single
    dom.histogramPressure(diag.pressureBins, 1.0e6);
  }

  return diag;
}

int parse_int(const char *text, const char *what, int lo, int hi) {
  int value = 0;
  try {
    std::size_t used = 0;
    value = std::stoi(text, &used);
    if (text[used] != '\0') throw std::invalid_argument("trailing characters");
  } catch (const std::invalid_argument &) {
    throw std::invalid_argument(std::string("not a number for ") + what + ": '" +
                                text + "'");
  } catch (const std::out_of_range &) {
    throw std::out_of_range(std::string(what) + " is out of range");
  }
  if (value < lo || value > hi) {
    std::ostringstream os;
    os << what << " must lie in [" << lo << ", " << hi << "], got " << value;
    throw std::out_of_range(os.str());
  }
  return value;
}

Params parse_args(int argc, char **argv) {
  Params p;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&](const char *what) -> const char * {
      if (i + 1 >= argc) throw std::invalid_argument(std::string(what) + " needs a value");
      return argv[++i];
    };

    if (arg == "-s" || arg == "--size") {
      p.nx = p.ny = p.nz = parse_int(next("size"), "size", 1, 1024);
    } else if (arg == "-i" || arg == "--iterations") {
      p.maxCycles = parse_int(next("iterations"), "iterations", 1, SW_MAX_CYCLES);
    } else if (arg == "-r" || arg == "--regions") {
      p.numRegions = parse_int(next("regions"), "regions", 1, 4096);
    } else if (arg == "-t" || arg == "--stop") {
      p.stopTime = std::atof(next("stop"));
    } else if (arg == "--walls") {
      for (auto &f : p.faces)
        if (f == Boundary::Free) f = Boundary::Wall;
    } else if (arg == "-v") {
      p.verbose = true;
    } else if (arg == "-h" || arg == "--help") {
      std::printf("usage: %s [-s N] [-i N] [-r N] [-t T] [--walls] [-v]\n", argv[0]);
      std::exit(0);
    } else {
      throw std::invalid_argument("unknown option " + arg);
    }
  }
  return p;
}

}  // namespace sw

namespace {

// Checks that the prefix sums used by the corner lists agree with a serial
// computation; cheap insurance when experimenting with schedules.
bool self_check(int threads) {
  std::vector<long> data(20000);
  std::iota(data.begin(), data.end(), 1L);
  long expected = 0;
  for (long v : data) expected += v;

  long got = 0;
#pragma omp parallel num_threads(threads)
  {
#pragma omp single
    got = sw::util::tree_combine(data.data(), data.size(), 0L,
                                 [](long a, long b) { return a + b; });
  }

  int seen = 0;
  std::vector<int> hits(static_cast<std::size_t>(threads), 0);
#pragma omp parallel num_threads(threads) reduction(+ : seen)
  {
    const int id = omp_get_thread_num();
    if (id < threads) hits[id] = 1;
    ++seen;
  }

  const bool ok = (got == expected) &&
                  std::all_of(hits.begin(), hits.begin() + seen,
                              [](int h) { return h == 1; });
  if (!ok)
    std::fprintf(stderr, "self check failed: %ld vs %ld over %d threads\n", got,
                 expected, seen);
  return ok;
}

void print_banner(const sw::Params &p) {
  std::cout << "shockwave " << SW_VERSION_STRING << " (" << p.label << ")\n"
            << "  mesh      " << p.nx << " x " << p.ny << " x " << p.nz << '\n'
            << "  regions   " << p.numRegions << '\n'
            << "  threads   " << omp_get_max_threads() << '\n';
  for (int f = 0; f < sw::kFaces; ++f)
    std::cout << "  face " << f << "    " << sw::boundary_name(p.faces[f]) << '\n';
#ifdef _OPENMP
  std::cout << "  OpenMP    " << _OPENMP << '\n';
#else
  std::cout << "  OpenMP    disabled\n";
#endif
}

}  // namespace

int main(int argc, char **argv) {
#if USE_MPI
  MPI_Init(&argc, &argv);
#endif
  int status = 0;

  try {
    const sw::Params params = sw::parse_args(argc, argv);
    print_banner(params);

    if (!self_check(SW_MIN(omp_get_max_threads(), 8)))
      throw std::logic_error("parallel self check failed");

    sw::util::WallTimer timer;
    sw::Domain domain(params);
    domain.initialize();

    std::vector<sw::CycleStats> history;
    history.reserve(static_cast<std::size_t>(params.maxCycles));

    while (!domain.finished()) {
      const sw::CycleStats stats = domain.advance();
      history.push_back(stats);
      if (params.verbose || domain.cycle() % params.reportEvery == 0)
        domain.writeSummary(std::cout);
    }
    timer.stop();

    // Worst cycles by time step, for the report.
    std::vector<std::size_t> order(history.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&history](std::size_t a, std::size_t b) {
      return history[a].dt < history[b].dt;
    });

    std::cout << "smallest steps:";
    std::for_each(order.begin(),
                  order.begin() + static_cast<std::ptrdiff_t>(SW_MIN(order.size(), std::size_t(5))),
                  [&](std::size_t c) { std::cout << ' ' << c << ':' << history[c].dt; });
    std::cout << '\n';

    const sw::Diagnostics diag = sw::analyze(domain, domain.velocities());
    std::printf("spread %.4e  radial momentum %.4e  (%d outer x %d inner threads)\n",
                diag.centroidSpread, diag.radialMomentum, diag.outerThreads,
                diag.innerThreads);

    sw::Real maxp = 0.0;
    for (const auto &s : history) maxp = SW_MAX(maxp, s.maxPressure);

    std::cout << "cycles       " << domain.cycle() << '\n'
              << "final time   " << domain.time() << '\n'
              << "max pressure " << maxp << '\n'
              << "wall time    " << std::fixed << std::setprecision(3)
              << timer.seconds() << " s\n";

    for (const std::string &line : domain.log()) std::cout << "# " << line << '\n';
  } catch (const std::invalid_argument &e) {
    std::cerr << "shockwave: " << e.what() << " (try --help)\n";
    status = 2;
  } catch (const std::exception &e) {
    std::cerr << "shockwave: fatal: " << e.what() << '\n';
    status = 1;
  }

#if USE_MPI
  MPI_Finalize();
#endif
  return status;
}
