//! A C++ source shaped like an OpenMP proxy application (a structured-grid
//! solver in the style of the mini-apps HPC centres publish): namespaces,
//! class templates with inline and out-of-line methods, constructors with
//! member initializers, lambdas, standard algorithms, long serial helpers,
//! comments and strings, and about 45 directives per 100 KB, most of the
//! code holding none. It is valid C++ (`g++ -fopenmp -fsyntax-only`
//! accepts it), so that a parse finds no error where a real code has none.

/// One module of the application: a namespace of its own.
fn module(k: usize) -> String {
    format!(
        r##"
// ---------------------------------------------------------------------------
// Module {k}: a cell-centred field on a block of the grid, the operators the
// solver applies to it, and the bookkeeping around a time step. Fields are
// stored in i-fastest order; halos are one cell wide on every face.
// ---------------------------------------------------------------------------
namespace proxy{k} {{

/// Run-time parameters of one block, read once and passed around by value.
struct Params {{
    double dt = 1.0e-3;
    double viscosity = 0.05;
    int nx = 64, ny = 64, nz = 32;
    int halo = 1;
    std::string name = "block-{k}";

    Params() = default;
    Params(int x, int y, int z) : nx{{x}}, ny{{y}}, nz{{z}} {{ }}

    std::size_t cells() const {{ return std::size_t(nx) * ny * nz; }}
    bool valid() const {{ return nx > 2 * halo && ny > 2 * halo && nz > 2 * halo && dt > 0.0; }}
    std::string describe() const
    {{
        std::ostringstream out;
        out << name << ": " << nx << " x " << ny << " x " << nz << " cells, dt = " << dt
            << ", viscosity = " << viscosity << " (halo " << halo << ")";
        return out.str();
    }}
}};

template <typename Real>
class Field {{
public:
    Field(int nx, int ny, int nz) : nx_{{nx}}, ny_{{ny}}, nz_{{nz}}, data_(std::size_t(nx) * ny * nz) {{ }}

    Real &operator()(int i, int j, int k) {{ return data_[index(i, j, k)]; }}
    const Real &operator()(int i, int j, int k) const {{ return data_[index(i, j, k)]; }}
    std::size_t size() const {{ return data_.size(); }}
    int nx() const {{ return nx_; }}
    int ny() const {{ return ny_; }}
    int nz() const {{ return nz_; }}

    void fill(Real value) {{ std::fill(data_.begin(), data_.end(), value); }}

    Real norm() const
    {{
        Real sum = Real(0);
#pragma omp parallel for reduction(+ : sum)
        for (std::size_t c = 0; c < data_.size(); ++c)
            sum += data_[c] * data_[c];
        return std::sqrt(sum);
    }}

    Real max_abs() const
    {{
        Real best = Real(0);
        for (const Real &v : data_)
            best = std::max(best, std::abs(v));
        return best;
    }}

    void copy_from(const Field &other)
    {{
        if (other.size() != size())
            throw std::runtime_error("field sizes differ in module {k}");
        std::copy(other.data_.begin(), other.data_.end(), data_.begin());
    }}

private:
    std::size_t index(int i, int j, int k) const
    {{
        return (std::size_t(k) * ny_ + j) * nx_ + i;
    }}

    int nx_, ny_, nz_;
    std::vector<Real> data_;
}};

/// Apply `f` to every interior cell, in parallel over planes.
template <typename Real, typename F>
void for_each_interior(Field<Real> &field, int halo, F &&f)
{{
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = halo; k < field.nz() - halo; ++k)
        for (int j = halo; j < field.ny() - halo; ++j)
            for (int i = halo; i < field.nx() - halo; ++i)
                f(field, i, j, k);
}}

class Solver {{
public:
    explicit Solver(const Params &p)
        : params_{{p}}, u_(p.nx, p.ny, p.nz), v_(p.nx, p.ny, p.nz), history_{{}}
    {{
        if (!params_.valid())
            throw std::invalid_argument("invalid parameters: " + params_.describe());
        u_.fill(0.0);
        v_.fill(0.0);
    }}

    void step();
    double residual() const;
    void apply_boundary(Field<double> &f) const;

    const std::vector<double> &history() const {{ return history_; }}
    std::string summary() const
    {{
        auto worst = std::max_element(history_.begin(), history_.end(),
                                      [](double a, double b) {{ return std::abs(a) < std::abs(b); }});
        std::ostringstream out;
        out << params_.describe() << ", " << history_.size() << " steps";
        if (worst != history_.end())
            out << ", largest residual " << *worst;
        return out.str();
    }}

private:
    Params params_;
    Field<double> u_, v_;
    std::vector<double> history_;
}};

void Solver::step()
{{
    const double nu = params_.viscosity * params_.dt;
    const int h = params_.halo;
    apply_boundary(u_);
#pragma omp parallel
    {{
#pragma omp for collapse(2) schedule(static)
        for (int k = h; k < u_.nz() - h; ++k)
            for (int j = h; j < u_.ny() - h; ++j)
                for (int i = h; i < u_.nx() - h; ++i) {{
                    const double lap = u_(i - 1, j, k) + u_(i + 1, j, k) + u_(i, j - 1, k)
                                     + u_(i, j + 1, k) + u_(i, j, k - 1) + u_(i, j, k + 1)
                                     - 6.0 * u_(i, j, k);
                    v_(i, j, k) = u_(i, j, k) + nu * lap;
                }}
#pragma omp single
        history_.push_back(v_.max_abs());
    }}
    u_.copy_from(v_);
}}

double Solver::residual() const
{{
    double worst = 0.0;
    const int h = params_.halo;
#pragma omp parallel for reduction(max : worst) collapse(2)
    for (int k = h; k < u_.nz() - h; ++k)
        for (int j = h; j < u_.ny() - h; ++j)
            for (int i = h; i < u_.nx() - h; ++i)
                worst = std::max(worst, std::abs(v_(i, j, k) - u_(i, j, k)));
    return worst;
}}

void Solver::apply_boundary(Field<double> &f) const
{{
    // Zero-gradient walls: copy the first interior layer into the halo on
    // each of the six faces, edges and corners included.
    const int nx = f.nx(), ny = f.ny(), nz = f.nz();
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j) {{
            f(0, j, k) = f(1, j, k);
            f(nx - 1, j, k) = f(nx - 2, j, k);
        }}
    for (int k = 0; k < nz; ++k)
        for (int i = 0; i < nx; ++i) {{
            f(i, 0, k) = f(i, 1, k);
            f(i, ny - 1, k) = f(i, ny - 2, k);
        }}
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {{
            f(i, j, 0) = f(i, j, 1);
            f(i, j, nz - 1) = f(i, j, nz - 2);
        }}
}}

/// Statistics of a run, gathered serially after the solve.
struct Report {{
    std::map<std::string, double> values;
    std::vector<std::pair<int, double>> samples;

    void add(const std::string &key, double value) {{ values[key] = value; }}
    void sample(int step, double value) {{ samples.emplace_back(step, value); }}

    double mean() const
    {{
        if (samples.empty())
            return 0.0;
        const double total = std::accumulate(samples.begin(), samples.end(), 0.0,
                                             [](double acc, const std::pair<int, double> &s) {{ return acc + s.second; }});
        return total / double(samples.size());
    }}

    std::string render() const
    {{
        std::ostringstream out;
        for (const auto &entry : values)
            out << "  " << entry.first << " = " << entry.second << "\n";
        out << "  mean of " << samples.size() << " samples = " << mean() << "\n";
        return out.str();
    }}
}};

/// Fixed-size matrices for the per-cell flux Jacobians.
template <int N>
struct SmallMatrix {{
    double a[N][N] = {{}};

    static SmallMatrix identity()
    {{
        SmallMatrix m;
        for (int i = 0; i < N; ++i)
            m.a[i][i] = 1.0;
        return m;
    }}

    SmallMatrix operator+(const SmallMatrix &o) const
    {{
        SmallMatrix r;
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j)
                r.a[i][j] = a[i][j] + o.a[i][j];
        return r;
    }}

    SmallMatrix operator*(const SmallMatrix &o) const
    {{
        SmallMatrix r;
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j) {{
                double s = 0.0;
                for (int k = 0; k < N; ++k)
                    s += a[i][k] * o.a[k][j];
                r.a[i][j] = s;
            }}
        return r;
    }}

    SmallMatrix transposed() const
    {{
        SmallMatrix r;
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j)
                r.a[j][i] = a[i][j];
        return r;
    }}

    double trace() const
    {{
        double t = 0.0;
        for (int i = 0; i < N; ++i)
            t += a[i][i];
        return t;
    }}

    double frobenius() const
    {{
        double s = 0.0;
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j)
                s += a[i][j] * a[i][j];
        return std::sqrt(s);
    }}
}};

inline double determinant(const SmallMatrix<3> &m)
{{
    const auto &a = m.a;
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
         - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
         + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}}

/// Command-line options of the module's driver: `--nx 64 --steps 10 ...`.
inline Params parse_options(int argc, const char *const *argv, int &steps)
{{
    Params p;
    steps = 10;
    for (int i = 1; i + 1 < argc; i += 2) {{
        const std::string key = argv[i];
        const std::string value = argv[i + 1];
        if (key == "--nx")
            p.nx = std::stoi(value);
        else if (key == "--ny")
            p.ny = std::stoi(value);
        else if (key == "--nz")
            p.nz = std::stoi(value);
        else if (key == "--dt")
            p.dt = std::stod(value);
        else if (key == "--viscosity")
            p.viscosity = std::stod(value);
        else if (key == "--steps")
            steps = std::stoi(value);
        else if (key == "--name")
            p.name = value;
        else
            throw std::invalid_argument("unknown option " + key + " for module {k}");
    }}
    return p;
}}

/// A legacy-VTK header and the field's values, one per line.
inline std::string to_vtk(const Field<double> &f, const std::string &title)
{{
    std::ostringstream out;
    out << "# vtk DataFile Version 3.0\n" << title << "\nASCII\nDATASET STRUCTURED_POINTS\n";
    out << "DIMENSIONS " << f.nx() << " " << f.ny() << " " << f.nz() << "\n";
    out << "ORIGIN 0 0 0\nSPACING 1 1 1\nPOINT_DATA " << f.size() << "\n";
    out << "SCALARS value double 1\nLOOKUP_TABLE default\n";
    for (int k = 0; k < f.nz(); ++k)
        for (int j = 0; j < f.ny(); ++j)
            for (int i = 0; i < f.nx(); ++i)
                out << f(i, j, k) << "\n";
    return out.str();
}}

/// Checks a run's history: finite, and shrinking after the first steps.
inline bool validate(const std::vector<double> &history, double tolerance, std::string &why)
{{
    auto not_finite = std::find_if(history.begin(), history.end(),
                                   [](double v) {{ return !std::isfinite(v); }});
    if (not_finite != history.end()) {{
        why = "step " + std::to_string(not_finite - history.begin()) + " is not finite";
        return false;
    }}
    const std::size_t warmup = std::min<std::size_t>(3, history.size());
    for (std::size_t s = warmup + 1; s < history.size(); ++s)
        if (history[s] > history[s - 1] * (1.0 + tolerance)) {{
            why = "residual grows at step " + std::to_string(s);
            return false;
        }}
    return true;
}}

/// Which rank owns which block of a px x py x pz decomposition, and who
/// its neighbours are on each face (periodic in x, walls elsewhere).
class Decomposition {{
public:
    Decomposition(int px, int py, int pz, int rank) : px_{{px}}, py_{{py}}, pz_{{pz}}, rank_{{rank}}
    {{
        if (px <= 0 || py <= 0 || pz <= 0)
            throw std::invalid_argument("empty decomposition in module {k}");
        if (rank < 0 || rank >= px * py * pz)
            throw std::out_of_range("rank " + std::to_string(rank) + " outside the decomposition");
    }}

    int ranks() const {{ return px_ * py_ * pz_; }}
    int x() const {{ return rank_ % px_; }}
    int y() const {{ return (rank_ / px_) % py_; }}
    int z() const {{ return rank_ / (px_ * py_); }}

    int rank_of(int x, int y, int z) const
    {{
        x = (x % px_ + px_) % px_;
        if (y < 0 || y >= py_ || z < 0 || z >= pz_)
            return -1;
        return (z * py_ + y) * px_ + x;
    }}

    std::vector<int> neighbours() const
    {{
        std::vector<int> out;
        const int dx[] = {{-1, 1, 0, 0, 0, 0}};
        const int dy[] = {{0, 0, -1, 1, 0, 0}};
        const int dz[] = {{0, 0, 0, 0, -1, 1}};
        for (int face = 0; face < 6; ++face)
            out.push_back(rank_of(x() + dx[face], y() + dy[face], z() + dz[face]));
        return out;
    }}

    /// The cells this rank owns of `n` along one axis split `parts` ways.
    static std::pair<int, int> share(int n, int parts, int index)
    {{
        const int base = n / parts, extra = n % parts;
        const int begin = index * base + std::min(index, extra);
        return {{begin, begin + base + (index < extra ? 1 : 0)}};
    }}

private:
    int px_, py_, pz_, rank_;
}};

/// A restart file: a header line, then the values, written and read back.
class Checkpoint {{
public:
    explicit Checkpoint(std::string path) : path_(std::move(path)) {{ }}

    std::string encode(const Params &p, const std::vector<double> &values) const
    {{
        std::ostringstream out;
        out << "checkpoint " << p.name << " " << p.nx << " " << p.ny << " " << p.nz << " "
            << values.size() << "\n";
        out.precision(17);
        for (double v : values)
            out << v << "\n";
        return out.str();
    }}

    std::vector<double> decode(const std::string &text, Params &p) const
    {{
        std::istringstream in(text);
        std::string magic;
        std::size_t count = 0;
        in >> magic >> p.name >> p.nx >> p.ny >> p.nz >> count;
        if (magic != "checkpoint")
            throw std::runtime_error(path_ + ": not a checkpoint");
        std::vector<double> values(count);
        for (std::size_t i = 0; i < count; ++i)
            if (!(in >> values[i]))
                throw std::runtime_error(path_ + ": truncated after " + std::to_string(i) + " values");
        return values;
    }}

    const std::string &path() const {{ return path_; }}

private:
    std::string path_;
}};

double run(const Params &p, int steps, Report &report)
{{
    Solver solver(p);
    for (int s = 0; s < steps; ++s) {{
        solver.step();
        report.sample(s, solver.residual());
    }}
    report.add("module", {k});
    report.add("steps", steps);
    return solver.history().empty() ? 0.0 : solver.history().back();
}}

double smooth(Field<double> &f, int halo)
{{
    double changed = 0.0;
    for_each_interior(f, halo, [](Field<double> &g, int i, int j, int k) {{
        g(i, j, k) = 0.5 * g(i, j, k) + 0.25 * (g(i - 1, j, k) + g(i + 1, j, k));
    }});
#pragma omp parallel for reduction(+ : changed)
    for (int k = 0; k < f.nz(); ++k)
        changed += f(halo, halo, k);
    return changed;
}}

}} // namespace proxy{k}
"##
    )
}

const PRELUDE: &str = "#include <algorithm>\n#include <cstddef>\n#include <cmath>\n#include <map>\n#include <numeric>\n#include <sstream>\n#include <stdexcept>\n#include <string>\n#include <utility>\n#include <vector>\n#include <sstream>\n";

/// About 100 KB of the application, then more modules to about `target`
/// bytes, each module a namespace of its own.
pub fn proxy_app(target: usize) -> Vec<u8> {
    let mut out = String::from(PRELUDE);
    let mut k = 0;
    while out.len() < target {
        out.push_str(&module(k));
        k += 1;
    }
    out.into_bytes()
}

/// Directives per 100 KB of `text`.
pub fn directive_density(text: &[u8]) -> f64 {
    let count = memchr::memmem::find_iter(text, b"#pragma omp").count();
    count as f64 * 100_000.0 / text.len() as f64
}
