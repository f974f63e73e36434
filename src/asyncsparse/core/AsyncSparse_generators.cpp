// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_parse_number.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <new>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_set>
#include <utility>
#include <vector>

namespace AsyncSparse {
namespace Impl {

constexpr std::int64_t gen_int_max = INT_MAX;

/// Number of stored entries of each generator, in 64 bit (m, n >= 1 assumed; no overflow for m < 2^20).
inline std::int64_t grid_rows(std::int64_t m, int dim) { return dim == 2 ? m * m : m * m * m; }
inline std::int64_t lap2d_nnz(std::int64_t m) { return 5 * m * m - 4 * m; }
inline std::int64_t lap3d7_nnz(std::int64_t m) { return 7 * m * m * m - 6 * m * m; }
inline std::int64_t lap3d27_nnz(std::int64_t m) { return (3 * m - 2) * (3 * m - 2) * (3 * m - 2); }
inline std::int64_t trefethen_nnz(std::int64_t n) {
  std::int64_t nnz = n;
  for (std::int64_t d = 1; d < n; d *= 2) nnz += 2 * (n - d);
  return nnz;
}

/// Why generator `name` cannot build a matrix of this size; empty when it can.
inline std::string generator_size_problem(const std::string& name, std::int64_t size, std::int64_t nnz_per_row = 1) {
  const bool grid = name != "trefethen" && name != "random";
  const char* what = grid ? "m" : "n";
  if (size < 1) return std::string(what) + " must be >= 1 (got " + std::to_string(size) + ")";
  if (size > gen_int_max) return std::string(what) + " = " + std::to_string(size) + " does not fit in int";
  // Above these, rows alone overflow int; checked first so that the nnz formulas cannot overflow int64.
  const int dim = name == "lap2d" || name == "aniso2d" || name == "convdiff2d" ? 2 : 3;
  if (grid && size > (dim == 2 ? 46341 : 1291))
    return "m = " + std::to_string(size) + " gives more than 2^31-1 rows (" + std::to_string(dim) + "D grid)";
  std::int64_t rows = grid ? grid_rows(size, dim) : size;
  std::int64_t nnz = 0;
  if (name == "lap2d" || name == "convdiff2d") nnz = lap2d_nnz(size);
  if (name == "aniso2d") nnz = (3 * size - 2) * (3 * size - 2);
  if (name == "lap3d7") nnz = lap3d7_nnz(size);
  if (name == "lap3d27") nnz = lap3d27_nnz(size);
  if (name == "trefethen") nnz = trefethen_nnz(size);
  if (name == "random") {
    if (nnz_per_row < 1 || nnz_per_row > size)
      return "nnz_per_row must be in [1, n] = [1, " + std::to_string(size) + "] (got " + std::to_string(nnz_per_row) +
             ")";
    nnz = size * nnz_per_row;
  }
  if (rows > gen_int_max) return std::to_string(rows) + " rows do not fit in int";
  if (nnz > max_stored_entries) return std::to_string(nnz) + " stored entries exceed " + max_stored_entries_text();
  return {};
}

inline void check_generator_size(const std::string& where, const std::string& name, std::int64_t size,
                                 std::int64_t nnz_per_row = 1) {
  const std::string problem = generator_size_problem(name, size, nnz_per_row);
  if (!problem.empty()) throw InvalidInput(where + ": " + problem);
}

/// Runs `build`, a generator's allocations and fill; a failed host allocation (std::bad_alloc, or a size beyond
/// std::vector's max_size) becomes OutOfMemory naming the generator and the memory its CSR arrays need.
template <class Build>
auto with_host_memory(const std::string& what, std::int64_t nrows, std::int64_t nnz, Build&& build) {
  try {
    return build();
  } catch (const std::exception& e) {
    if (!dynamic_cast<const std::bad_alloc*>(&e) && !dynamic_cast<const std::length_error*>(&e)) throw;
    const double gb = (static_cast<double>(nrows + 1) * sizeof(offset_t) +
                       static_cast<double>(nnz) * (sizeof(ordinal_t) + sizeof(double))) /
                      1e9;
    std::ostringstream os;
    os << what << ": out of host memory: " << nnz << " stored entries need " << std::setprecision(3) << gb
       << " GB for the CSR arrays (" << e.what() << ")";
    throw OutOfMemory(os.str());
  }
}

/// An n x n CsrHost with room for `nnz` entries (reserved, not filled), under the out-of-memory check.
inline CsrHost<double> reserved_matrix(const char* what, ordinal_t n, std::int64_t nnz) {
  return with_host_memory(what, n, nnz, [&] {
    CsrHost<double> A(n, n);
    A.col_idx.reserve(static_cast<std::size_t>(nnz));
    A.values.reserve(static_cast<std::size_t>(nnz));
    return A;
  });
}

struct StencilEntry {
  int dx, dy, dz;
  double value;
};

/// Constant-coefficient stencil on an m^dim grid (dim 2 or 3), Dirichlet: neighbours outside the grid are
/// dropped. Entries are emitted by increasing linear offset, so every row comes out sorted.
inline CsrHost<double> stencil_matrix(const char* name, ordinal_t m, int dim, std::vector<StencilEntry> stencil,
                                      std::int64_t nnz_hint) {
  for (const auto& e : stencil)  // e.g. aniso2d with eps = 1e308: the diagonal overflows
    if (!std::isfinite(e.value))
      throw InvalidInput(std::string(name) + ": its parameters give stencil coefficients that overflow double");
  const std::int64_t mm = static_cast<std::int64_t>(m) * m;
  const ordinal_t n = static_cast<ordinal_t>(dim == 2 ? mm : mm * m);
  std::sort(stencil.begin(), stencil.end(), [mm, m](const StencilEntry& a, const StencilEntry& b) {
    return a.dz * mm + a.dy * m + a.dx < b.dz * mm + b.dy * m + b.dx;
  });
  CsrHost<double> A = reserved_matrix(name, n, nnz_hint);
  const int mz = dim == 2 ? 1 : m;
  ordinal_t row = 0;
  for (int k = 0; k < mz; ++k)
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i, ++row) {
        for (const auto& s : stencil) {
          const int ii = i + s.dx, jj = j + s.dy, kk = k + s.dz;
          if (ii < 0 || ii >= m || jj < 0 || jj >= m || kk < 0 || kk >= mz) continue;
          A.col_idx.push_back(static_cast<ordinal_t>(ii + m * jj + mm * kk));
          A.values.push_back(s.value);
        }
        A.row_ptr[row + 1] = static_cast<offset_t>(A.col_idx.size());
      }
  return A;
}

/// The first n primes (sieve of Eratosthenes; p_n < n (ln n + ln ln n) for n >= 6).
inline std::vector<std::int64_t> first_primes(ordinal_t n) {
  const double x = std::max<double>(n, 6);
  const std::size_t limit = static_cast<std::size_t>(x * (std::log(x) + std::log(std::log(x)))) + 16;
  std::vector<bool> composite(limit + 1, false);
  std::vector<std::int64_t> primes;
  primes.reserve(static_cast<std::size_t>(n));
  for (std::size_t p = 2; p <= limit && primes.size() < static_cast<std::size_t>(n); ++p) {
    if (composite[p]) continue;
    primes.push_back(static_cast<std::int64_t>(p));
    for (std::size_t q = p * p; q <= limit; q += p) composite[q] = true;
  }
  return primes;
}

/// mt19937_64 with draws computed from its raw outputs, identical across standard libraries.
class PortableRng {
 public:
  explicit PortableRng(std::uint64_t seed) : g_(seed) {}
  /// Uniform integer in [0, bound), bound >= 1 (rejection, unbiased).
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    std::uint64_t r;
    do r = g_();
    while (r < threshold);
    return r % bound;
  }
  /// Uniform double in [-1, 1).
  double symmetric_unit() { return 2.0 * (static_cast<double>(g_() >> 11) * 0x1.0p-53) - 1.0; }

 private:
  std::mt19937_64 g_;
};

/// k distinct integers of [0, range), sorted (Floyd's sampling algorithm). k <= range.
inline std::vector<std::int64_t> sample_distinct(PortableRng& rng, std::int64_t range, std::int64_t k) {
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(k));
  std::unordered_set<std::int64_t> chosen;  // only for large k; small k search `out` linearly
  const bool use_set = k > 32;
  if (use_set) chosen.reserve(static_cast<std::size_t>(k) * 2);
  for (std::int64_t j = range - k; j < range; ++j) {
    const std::int64_t t = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(j + 1)));
    const bool taken = use_set ? chosen.count(t) > 0 : std::find(out.begin(), out.end(), t) != out.end();
    const std::int64_t pick = taken ? j : t;
    if (use_set) chosen.insert(pick);
    out.push_back(pick);
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string generator_formats() {
  return "gen:lap2d:M, gen:lap3d7:M, gen:lap3d27:M, gen:aniso2d:M[:EPS[:THETA_DEGREES]], gen:convdiff2d:M[:PECLET], "
         "gen:trefethen:N, gen:random:N[:NNZ_PER_ROW[:SEED]]";
}

[[noreturn]] inline void bad_spec(const std::string& spec, const std::string& problem) {
  throw InvalidInput("parse_generator: bad generator spec '" + spec + "': " + problem +
                     " (valid generators: " + generator_names() + "; formats: " + generator_formats() + ")");
}

inline std::int64_t parse_spec_int(const std::string& spec, const std::string& field, const std::string& text) {
  long long v = 0;
  const NumberText t = parse_integer(text, v);
  if (t == NumberText::Malformed || (t == NumberText::Ok && v < 0))
    bad_spec(spec, field + " '" + text + "' is not a non-negative integer");
  if (t == NumberText::OutOfRange || v > gen_int_max) bad_spec(spec, field + " " + text + " does not fit in int");
  return v;
}

inline double parse_spec_double(const std::string& spec, const std::string& field, const std::string& text) {
  double v = 0;
  const NumberText t = parse_number(text, v);
  if (t == NumberText::Malformed) bad_spec(spec, field + " '" + text + "' is not a number");
  if (t == NumberText::OutOfRange) bad_spec(spec, field + " '" + text + "' is out of the range of double");
  if (!std::isfinite(v)) bad_spec(spec, field + " '" + text + "' is not finite");
  return v;
}

/// The matrix of random_diag_dominant (arguments checked).
CsrHost<double> random_matrix(ordinal_t n, ordinal_t nnz_per_row, std::uint64_t seed, bool symmetric, double dominance);

}  // namespace Impl

CsrHost<double> lap2d(ordinal_t m) {
  Impl::check_generator_size("lap2d", "lap2d", m);
  return Impl::stencil_matrix("lap2d", m, 2,
                              {{0, 0, 0, 4.0}, {-1, 0, 0, -1.0}, {1, 0, 0, -1.0}, {0, -1, 0, -1.0}, {0, 1, 0, -1.0}},
                              Impl::lap2d_nnz(m));
}

CsrHost<double> lap3d7(ordinal_t m) {
  Impl::check_generator_size("lap3d7", "lap3d7", m);
  return Impl::stencil_matrix("lap3d7", m, 3,
                              {{0, 0, 0, 6.0},
                               {-1, 0, 0, -1.0},
                               {1, 0, 0, -1.0},
                               {0, -1, 0, -1.0},
                               {0, 1, 0, -1.0},
                               {0, 0, -1, -1.0},
                               {0, 0, 1, -1.0}},
                              Impl::lap3d7_nnz(m));
}

CsrHost<double> lap3d27(ordinal_t m) {
  Impl::check_generator_size("lap3d27", "lap3d27", m);
  std::vector<Impl::StencilEntry> st;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) st.push_back({dx, dy, dz, (dx == 0 && dy == 0 && dz == 0) ? 26.0 : -1.0});
  return Impl::stencil_matrix("lap3d27", m, 3, st, Impl::lap3d27_nnz(m));
}

CsrHost<double> aniso2d(ordinal_t m, double eps, double theta_degrees) {
  Impl::check_generator_size("aniso2d", "aniso2d", m);
  if (!(std::isfinite(eps) && eps > 0))
    throw InvalidInput("aniso2d: eps must be finite and > 0 (got " + std::to_string(eps) + ")");
  if (!std::isfinite(theta_degrees))
    throw InvalidInput("aniso2d: theta_degrees must be finite (got " + std::to_string(theta_degrees) + ")");
  double cs, sn;
  const double r = std::fmod(theta_degrees, 90.0);
  if (r == 0.0) {  // exact values at multiples of 90 degrees, so that b is exactly 0 there
    long q = static_cast<long>(std::fmod(theta_degrees / 90.0, 4.0));
    if (q < 0) q += 4;
    const double c4[4] = {1.0, 0.0, -1.0, 0.0}, s4[4] = {0.0, 1.0, 0.0, -1.0};
    cs = c4[q];
    sn = s4[q];
  } else {
    const double t = theta_degrees * (3.14159265358979323846 / 180.0);
    cs = std::cos(t);
    sn = std::sin(t);
  }
  const double a = 1.0 - (1.0 - eps) * sn * sn;
  const double c = eps + (1.0 - eps) * sn * sn;
  const double b = (1.0 - eps) * cs * sn;
  std::vector<Impl::StencilEntry> st{
      {0, 0, 0, 2 * a + 2 * c}, {-1, 0, 0, -a}, {1, 0, 0, -a}, {0, -1, 0, -c}, {0, 1, 0, -c}};
  if (b != 0.0) {
    st.push_back({1, 1, 0, -b / 2});
    st.push_back({-1, -1, 0, -b / 2});
    st.push_back({-1, 1, 0, b / 2});
    st.push_back({1, -1, 0, b / 2});
  }
  const std::int64_t nnz = b != 0.0 ? (3 * std::int64_t(m) - 2) * (3 * std::int64_t(m) - 2) : Impl::lap2d_nnz(m);
  return Impl::stencil_matrix("aniso2d", m, 2, st, nnz);
}

CsrHost<double> convdiff2d(ordinal_t m, double peclet) {
  Impl::check_generator_size("convdiff2d", "convdiff2d", m);
  if (!std::isfinite(peclet))
    throw InvalidInput("convdiff2d: peclet must be finite (got " + std::to_string(peclet) + ")");
  const double p = std::fabs(peclet);
  if (!std::isfinite(4.0 + 2.0 * p))
    throw InvalidInput("convdiff2d: |peclet| = " + std::to_string(p) + " is too large (the diagonal 4 + 2|peclet| overflows)");
  // upwind neighbours (W, S for p >= 0; E, N for p < 0) carry the convection
  const double minus = peclet >= 0 ? -1.0 - p : -1.0, plus = peclet >= 0 ? -1.0 : -1.0 - p;
  return Impl::stencil_matrix(
      "convdiff2d", m, 2,
      {{0, 0, 0, 4.0 + 2.0 * p}, {-1, 0, 0, minus}, {1, 0, 0, plus}, {0, -1, 0, minus}, {0, 1, 0, plus}},
      Impl::lap2d_nnz(m));
}

CsrHost<double> trefethen(ordinal_t n) {
  Impl::check_generator_size("trefethen", "trefethen", n);
  const std::int64_t nnz = Impl::trefethen_nnz(n);
  const std::vector<std::int64_t> primes =
      Impl::with_host_memory("trefethen", n, nnz, [&] { return Impl::first_primes(n); });
  std::vector<ordinal_t> powers;
  for (std::int64_t d = 1; d < n; d *= 2) powers.push_back(static_cast<ordinal_t>(d));
  CsrHost<double> A = Impl::reserved_matrix("trefethen", n, nnz);
  for (ordinal_t i = 0; i < n; ++i) {
    for (auto it = powers.rbegin(); it != powers.rend(); ++it)
      if (i - *it >= 0) {
        A.col_idx.push_back(i - *it);
        A.values.push_back(1.0);
      }
    A.col_idx.push_back(i);
    A.values.push_back(static_cast<double>(primes[static_cast<std::size_t>(i)]));
    for (ordinal_t d : powers)
      if (static_cast<std::int64_t>(i) + d < n) {
        A.col_idx.push_back(i + d);
        A.values.push_back(1.0);
      }
    A.row_ptr[i + 1] = static_cast<offset_t>(A.col_idx.size());
  }
  return A;
}

CsrHost<double> random_diag_dominant(ordinal_t n, ordinal_t nnz_per_row, std::uint64_t seed, bool symmetric,
                                     double dominance) {
  Impl::check_generator_size("random_diag_dominant", "random", n, nnz_per_row);
  if (!(std::isfinite(dominance) && dominance > 0))
    throw InvalidInput("random_diag_dominant: dominance must be finite and > 0 (got " + std::to_string(dominance) +
                       ")");
  return Impl::with_host_memory("random_diag_dominant", n, std::int64_t(n) * nnz_per_row,
                                [&] { return Impl::random_matrix(n, nnz_per_row, seed, symmetric, dominance); });
}

namespace Impl {
CsrHost<double> random_matrix(ordinal_t n, ordinal_t nnz_per_row, std::uint64_t seed, bool symmetric,
                              double dominance) {
  PortableRng rng(seed);
  const std::int64_t K = nnz_per_row - 1;  // off-diagonal entries per row (target)
  std::vector<ordinal_t> rows, cols;
  std::vector<double> vals;
  if (!symmetric) {
    rows.reserve(static_cast<std::size_t>(n) * nnz_per_row);
    for (ordinal_t i = 0; i < n; ++i)
      for (std::int64_t t : Impl::sample_distinct(rng, n - 1, K)) {
        rows.push_back(i);
        cols.push_back(static_cast<ordinal_t>(t >= i ? t + 1 : t));
        vals.push_back(rng.symmetric_unit());
      }
  } else {
    struct Pair {
      ordinal_t lo, hi;
      double v;
    };
    std::vector<Pair> pairs;
    pairs.reserve(static_cast<std::size_t>(n * K / 2 + 1));
    for (ordinal_t i = 0; i < n; ++i) {
      const std::int64_t share = (std::int64_t(i) + 1) * K / 2 - std::int64_t(i) * K / 2;
      for (std::int64_t t : Impl::sample_distinct(rng, n - 1, share)) {
        const ordinal_t j = static_cast<ordinal_t>(t >= i ? t + 1 : t);
        pairs.push_back({std::min(i, j), std::max(i, j), rng.symmetric_unit()});
      }
    }
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const Pair& a, const Pair& b) { return a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi; });
    pairs.erase(std::unique(pairs.begin(), pairs.end(),
                            [](const Pair& a, const Pair& b) { return a.lo == b.lo && a.hi == b.hi; }),
                pairs.end());
    rows.reserve(2 * pairs.size() + n);
    for (const Pair& p : pairs) {
      rows.push_back(p.lo), cols.push_back(p.hi), vals.push_back(p.v);
      rows.push_back(p.hi), cols.push_back(p.lo), vals.push_back(p.v);
    }
  }
  std::vector<double> offsum(static_cast<std::size_t>(n), 0.0);
  for (std::size_t k = 0; k < rows.size(); ++k) offsum[rows[k]] += std::fabs(vals[k]);
  for (ordinal_t i = 0; i < n; ++i) {
    rows.push_back(i);
    cols.push_back(i);
    vals.push_back(offsum[i] > 0 ? dominance * offsum[i] : 1.0);
  }
  return csr_from_triplets(n, n, rows, cols, vals, /*sort=*/true, /*sum_duplicates=*/false);
}
}  // namespace Impl

std::string generator_names() { return "lap2d, lap3d7, lap3d27, aniso2d, convdiff2d, trefethen, random"; }

bool is_generator_spec(const std::string& spec) { return spec.compare(0, 4, "gen:") == 0; }

GeneratorSpec parse_generator(const std::string& spec) {
  if (!is_generator_spec(spec)) Impl::bad_spec(spec, "a generator spec starts with 'gen:'");
  std::vector<std::string> f;
  std::size_t start = 0;
  while (true) {
    const std::size_t colon = spec.find(':', start);
    f.push_back(spec.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  GeneratorSpec g;
  g.spec = spec;
  g.name = f.size() > 1 ? f[1] : "";
  std::size_t min_fields = 3, max_fields = 3;
  if (g.name == "aniso2d" || g.name == "random")
    max_fields = 5;
  else if (g.name == "convdiff2d")
    max_fields = 4;
  else if (g.name != "lap2d" && g.name != "lap3d7" && g.name != "lap3d27" && g.name != "trefethen")
    Impl::bad_spec(spec, "unknown generator '" + g.name + "'");
  if (f.size() < min_fields || f.size() > max_fields)
    Impl::bad_spec(spec, g.name + " takes " +
                             (max_fields == min_fields ? std::to_string(min_fields - 2)
                                                       : "1 to " + std::to_string(max_fields - 2)) +
                             " ':'-separated fields after the name, got " + std::to_string(f.size() - 2));
  const bool grid = g.name != "trefethen" && g.name != "random";
  const std::int64_t size = Impl::parse_spec_int(spec, grid ? "size M" : "size N", f[2]);
  std::int64_t nnz_per_row = 1;
  if (g.name == "aniso2d") {
    if (f.size() > 3) g.eps = Impl::parse_spec_double(spec, "EPS", f[3]);
    if (f.size() > 4) g.theta_degrees = Impl::parse_spec_double(spec, "THETA_DEGREES", f[4]);
    if (!(g.eps > 0)) Impl::bad_spec(spec, "EPS must be > 0");
  }
  if (g.name == "convdiff2d" && f.size() > 3) g.peclet = Impl::parse_spec_double(spec, "PECLET", f[3]);
  if (g.name == "random") {
    nnz_per_row = f.size() > 3 ? Impl::parse_spec_int(spec, "NNZ_PER_ROW", f[3]) : std::min<std::int64_t>(7, size);
    if (f.size() > 4) {
      unsigned long long v = 0;
      if (Impl::parse_unsigned(f[4], v) != Impl::NumberText::Ok)
        Impl::bad_spec(spec, "SEED '" + f[4] + "' is not an unsigned 64-bit integer");
      g.seed = static_cast<std::uint64_t>(v);
    }
  }
  const std::string problem = Impl::generator_size_problem(g.name, size, nnz_per_row);
  if (!problem.empty()) Impl::bad_spec(spec, problem);
  g.size = static_cast<ordinal_t>(size);
  g.nnz_per_row = static_cast<ordinal_t>(nnz_per_row > 0 ? nnz_per_row : 1);
  if (g.name != "random") g.nnz_per_row = GeneratorSpec().nnz_per_row;
  return g;
}

CsrHost<double> generate(const GeneratorSpec& g) {
  if (g.name == "lap2d") return lap2d(g.size);
  if (g.name == "lap3d7") return lap3d7(g.size);
  if (g.name == "lap3d27") return lap3d27(g.size);
  if (g.name == "aniso2d") return aniso2d(g.size, g.eps, g.theta_degrees);
  if (g.name == "convdiff2d") return convdiff2d(g.size, g.peclet);
  if (g.name == "trefethen") return trefethen(g.size);
  if (g.name == "random") return random_diag_dominant(g.size, g.nnz_per_row, g.seed);
  throw InvalidInput("generate: unknown generator '" + g.name + "' (valid generators: " + generator_names() + ")");
}

CsrHost<double> generate(const std::string& spec) { return generate(parse_generator(spec)); }

}  // namespace AsyncSparse
