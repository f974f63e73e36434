// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — test-matrix generators.
//
// Every generator returns a CsrHost<double> with sorted, unique column indices in each row, numbered
// in natural (lexicographic) order: the grid point (i, j[, k]) of an m-point-per-direction grid is
// row i + m*j [+ m*m*k], x fastest. Sizes are checked before anything is allocated: m, n >= 1 and the
// number of rows must fit in ordinal_t (int) and that of stored entries in offset_t (int, or std::int64_t in a
// library configured with AsyncSparse_OFFSET_TYPE=int64); otherwise InvalidInput. Host arrays that cannot be
// allocated are OutOfMemory, with the size they need.
//
//   lap2d(m)          5-point Laplacian, m x m interior grid, Dirichlet: 4 on the diagonal, -1 to the
//                     4 neighbours. nnz = 5m^2 - 4m. ("L2D" of the ILU paper at m = 1024.)
//   lap3d7(m)         7-point Laplacian, m^3 rows: 6 / -1. nnz = 7m^3 - 6m^2.
//   lap3d27(m)        27-point Laplacian, m^3 rows: 26 on the diagonal, -1 to all 26 neighbours
//                     (faces, edges, corners). nnz = (3m-2)^3 = 27m^3 - 54m^2 + 36m - 8.
//                     ("L3D" of the ILU paper at m = 64.)
//   aniso2d(m,eps,th) rotated anisotropic diffusion, 9-point stencil (see aniso2d below).
//   convdiff2d(m,pe)  2D convection-diffusion, first-order upwind, 5-point, nonsymmetric M-matrix (see below).
//   trefethen(n)      the Trefethen matrix (SuiteSparse JGD_Trefethen): the primes 2, 3, 5, ... on the
//                     diagonal, 1 at (i, j) whenever |i - j| is a power of two (1, 2, 4, ...).
//   random_diag_dominant(n, nnz_per_row, seed, symmetric, dominance)
//                     random sparse pattern, diagonal = dominance * (sum of |off-diagonal| of the row).
//
// String specs (used by the driver, the perf tests and the examples) select a generator by name:
//   gen:lap2d:M   gen:lap3d7:M   gen:lap3d27:M   gen:aniso2d:M[:EPS[:THETA_DEGREES]]   gen:convdiff2d:M[:PECLET]
//   gen:trefethen:N   gen:random:N[:NNZ_PER_ROW[:SEED]]
// e.g. "gen:lap2d:1024", "gen:lap3d27:64", "gen:aniso2d:256:0.01:30", "gen:convdiff2d:150:1". parse_generator()
// turns a spec into a GeneratorSpec, generate() builds the matrix; a bad spec is an InvalidInput that quotes the
// spec and lists the valid generator names.
#pragma once

#include <cstdint>
#include <string>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>

namespace AsyncSparse {

/// 5-point 2D Laplacian on an m x m interior grid (Dirichlet boundary), natural order.
/// m: points per direction, >= 1. Rows m^2, nnz 5m^2 - 4m, diagonal 4, off-diagonals -1.
CsrHost<double> lap2d(ordinal_t m);

/// 7-point 3D Laplacian on an m x m x m interior grid, natural order. m >= 1. Rows m^3, nnz 7m^3 - 6m^2,
/// diagonal 6, off-diagonals -1.
CsrHost<double> lap3d7(ordinal_t m);

/// 27-point 3D Laplacian on an m x m x m interior grid, natural order. m >= 1. Rows m^3,
/// nnz (3m-2)^3, diagonal 26, every one of the (up to) 26 neighbours -1.
CsrHost<double> lap3d27(ordinal_t m);

/// Rotated anisotropic diffusion -div(K grad u) on the unit square, Dirichlet, h = 1/(m+1), with
///   K = R(theta) diag(1, eps) R(theta)^T = [[a, b], [b, c]],
///   a = cos^2 + eps sin^2,   c = sin^2 + eps cos^2,   b = (1 - eps) cos sin,
/// so that -div(K grad u) = -(a u_xx + 2b u_xy + c u_yy). u_xx and u_yy use the standard 3-point
/// second differences, u_xy the central difference (u_NE - u_NW - u_SE + u_SW) / (4h^2). The matrix is
/// h^2 times the discrete operator (entries independent of m), i.e. the stencil
///
///       NW  N  NE        b/2   -c   -b/2
///       W   C  E    =    -a  2a+2c   -a           (N = +y, E = +x)
///       SW  S  SE       -b/2   -c    b/2
///
/// a and c are evaluated as 1 - (1-eps) sin^2 and eps + (1-eps) sin^2, so that eps = 1 gives exactly
/// lap2d(m) for every theta (a = c = 1, b = 0), and theta = 0 gives exactly the axis-aligned stencil
/// 2+2eps / -1 (E, W) / -eps (N, S). The matrix is symmetric, and positive definite for every
/// eps > 0 (its symbol 4a sx^2 + 4c sy^2 + 8b sx cx sy cy is > 0 away from 0 because b^2 <= ac), but
/// not an M-matrix when b != 0. When b is exactly 0 (eps = 1, or theta a multiple of 90 degrees, for
/// which cos/sin are taken exact) the zero corner entries are not stored: the pattern is 5-point
/// (nnz 5m^2 - 4m), else 9-point (nnz (3m-2)^2).
/// m: points per direction, >= 1. eps: anisotropy ratio, finite and > 0 (default 0.01).
/// theta_degrees: rotation angle of the principal direction in degrees, finite (default 30).
CsrHost<double> aniso2d(ordinal_t m, double eps = 0.01, double theta_degrees = 30.0);

/// Convection-diffusion -Δu + w·∇u on the unit square, Dirichlet, h = 1/(m+1), natural order, with the
/// velocity w = (w, w) along the diagonal, the Laplacian by the 5-point stencil and the convection by
/// first-order upwind differences (w > 0: backward differences, (u_C - u_W) / h and (u_C - u_S) / h). The matrix
/// is h^2 times the discrete operator, so its entries depend only on the mesh Péclet number p = w h (diffusion
/// coefficient 1):
///
///       N                 -1                    (p >= 0; for p < 0 the roles of W, S and E, N swap:
///    W  C  E   =   -1-p  4+2p  -1                the upwind side is then E, N, with -1-|p|)
///       S                -1-p
///
/// Nonsymmetric for p != 0 (p = 0 gives exactly lap2d(m)), and an M-matrix for every p: non-positive
/// off-diagonals, rows weakly diagonally dominant (strictly next to the boundary), irreducible. So Jacobi and
/// Gauss–Seidel converge; the Jacobi iteration matrix has spectral radius 4 sqrt(1+|p|) cos(pi h) / (4+2|p|)
/// (= rho(|M|), its entries are non-negative). Pattern and nnz as lap2d (5m^2 - 4m).
/// m: points per direction, >= 1. peclet: p, finite (default 1).
CsrHost<double> convdiff2d(ordinal_t m, double peclet = 1.0);

/// Trefethen matrix of order n >= 1: diagonal a_ii = (i+1)-th prime, a_ij = 1 when |i-j| = 1, 2, 4, 8, ...
/// Symmetric positive definite. trefethen(2000) is SuiteSparse's Trefethen_2000 (nnz 41906).
CsrHost<double> trefethen(ordinal_t n);

/// Random sparse matrix with a prescribed diagonal dominance.
/// n: order, >= 1.
/// nnz_per_row: target number of stored entries per row including the diagonal, 1 <= nnz_per_row <= n
///   (default 7). Unsymmetric: every row has exactly nnz_per_row entries, its off-diagonal
///   columns drawn uniformly without replacement. Symmetric: about n*(nnz_per_row-1)/2 off-diagonal pairs
///   {i, j} are drawn (row i draws its share of partners uniformly among all other rows) and mirrored;
///   pairs drawn twice are kept once, so rows hold nnz_per_row entries on average, slightly fewer.
/// seed: seed of the std::mt19937_64 stream (default 1). The integer and real draws are computed from
///   the raw 64-bit outputs (not through std:: distributions), so a seed gives the same matrix with
///   every standard library.
/// symmetric: symmetric pattern and values (default true).
/// dominance: the diagonal is dominance * sum_j |a_ij| over the row's off-diagonal entries, positive
///   (default 1.5); rows without off-diagonal entries get diagonal 1. dominance > 1 makes every row
///   strictly diagonally dominant (and the matrix SPD when symmetric); 0 < dominance <= 1 gives
///   matrices on which Jacobi-type methods may diverge. Off-diagonal values are uniform in [-1, 1).
CsrHost<double> random_diag_dominant(ordinal_t n, ordinal_t nnz_per_row = 7, std::uint64_t seed = 1,
                                     bool symmetric = true, double dominance = 1.5);

/// A parsed generator spec. Fields a generator does not use keep their defaults.
struct GeneratorSpec {
  std::string spec;             ///< the spec string as given
  std::string name;             ///< lap2d | lap3d7 | lap3d27 | aniso2d | convdiff2d | trefethen | random
  ordinal_t size = 0;           ///< m (grid generators) or n (trefethen, random)
  double eps = 0.01;            ///< aniso2d anisotropy ratio
  double theta_degrees = 30.0;  ///< aniso2d rotation angle
  double peclet = 1.0;          ///< convdiff2d mesh Péclet number p = w h
  ordinal_t nnz_per_row = 7;    ///< random: target entries per row (capped at n when not given)
  std::uint64_t seed = 1;       ///< random: seed
};

/// Comma-separated list of the generator names, as used in error messages.
std::string generator_names();

/// True when `spec` starts with "gen:" (it names a generator rather than a file).
bool is_generator_spec(const std::string& spec);

/// Parse and check a spec (format above): unknown name, wrong field count, malformed or out-of-range
/// numbers, sizes < 1 and matrices whose rows overflow int or whose nnz overflow offset_t are InvalidInput quoting the
/// spec.
GeneratorSpec parse_generator(const std::string& spec);

/// Build the matrix a parsed spec describes.
CsrHost<double> generate(const GeneratorSpec& spec);

/// parse_generator + generate.
CsrHost<double> generate(const std::string& spec);

}  // namespace AsyncSparse
