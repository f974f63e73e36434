// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — task-list orderings for the fine-grained (Chow–Patel) ILU/IC sweeps.
//
// Chow, Anzt & Dongarra ("Asynchronous iterative algorithm for computing incomplete factorizations on
// GPUs", 2015, sect. 3.6) store the pattern S of the factorization as a COO list, the "task list": entry t of
// the list is the unknown (l_ij or u_ij) updated by thread t, and consecutive chunks of the list form the
// thread blocks. The order of the list therefore sets both the update order seen by the asynchronous
// iteration (convergence) and the data each block touches (locality). The orderings of the paper:
//
//  * RowMajor   — row by row, left to right within a row: the "Gaussian elimination ordering" (default).
//  * Random     — a random permutation of S (the paper's extreme case of disordered memory access, Table 4).
//  * MeshBlocked — for matrices from a regular 2D (nx × ny) or 3D (nx × ny × nz) mesh in natural order (x
//    fastest): the mesh is cut into b × b (× b) subdomains; the rows of each subdomain are listed together
//    (subdomains in lexicographic order, rows inside a subdomain in natural order), each row with its entries
//    left to right (sect. 3.3, Fig. 1 middle; Table 4 "b×b×b blockings").
//
// The paper's fourth variant, RCM, is an ordering of the matrix, not of the list: permute A symmetrically
// with rcm_permutation / permute_symmetric (AsyncSparse_rcm.hpp) and use RowMajor (sect. 3.4). The asyncsparse
// driver does that for `--ordering rcm`.
//
// Thread-block execution order (forward / backward / random) is not part of the list: it is the BlockOrder of
// the LaunchConfig (AsyncSparse_launch_config.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <asyncsparse/core/AsyncSparse_csr_host.hpp>
#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_generators.hpp>

namespace AsyncSparse {

/// Order of the entries of S in the task list (see the header comment).
enum class TaskOrdering { RowMajor, Random, MeshBlocked };

inline const char* to_string(TaskOrdering o) {
  switch (o) {
    case TaskOrdering::RowMajor:
      return "row-major";
    case TaskOrdering::Random:
      return "random";
    default:
      return "mesh-blocked";
  }
}
inline TaskOrdering task_ordering_from_string(const std::string& s) {
  if (s == "row-major") return TaskOrdering::RowMajor;
  if (s == "random") return TaskOrdering::Random;
  if (s == "mesh-blocked") return TaskOrdering::MeshBlocked;
  throw InvalidInput("task ordering '" + s + "' unknown (valid: row-major, random, mesh-blocked)");
}

/// The regular mesh behind a matrix in natural order (row = x + nx * (y + ny * z)) and the blocking.
struct MeshBlocking {
  /// Mesh points per direction. nz = 1 for a 2D mesh. Default 0 (no mesh known; MeshBlocked then throws).
  ordinal_t nx = 0, ny = 0, nz = 1;
  /// Edge b of the b × b (2D) or b × b × b (3D) subdomains, >= 1. Default 8.
  ordinal_t block = 8;
  bool valid() const { return nx > 0 && ny > 0 && nz > 0; }
};

/// Mesh of a generator spec: gen:lap2d:M, gen:aniso2d:M... and gen:convdiff2d:M... give M × M, gen:lap3d7:M and
/// gen:lap3d27:M give M × M × M; anything else gives an invalid (all-zero) mesh. `block`: the subdomain edge to
/// record.
inline MeshBlocking mesh_from_generator_spec(const std::string& spec, ordinal_t block = 8) {
  MeshBlocking m;
  m.block = block;
  m.nx = m.ny = 0;
  if (!is_generator_spec(spec)) return m;
  const GeneratorSpec g = parse_generator(spec);
  if (g.name == "lap2d" || g.name == "aniso2d" || g.name == "convdiff2d") {
    m.nx = m.ny = g.size;
    m.nz = 1;
  } else if (g.name == "lap3d7" || g.name == "lap3d27") {
    m.nx = m.ny = m.nz = g.size;
  }
  return m;
}

/// Rows in mesh-blocked order: result[r] = the r-th row to list. Throws InvalidInput when the mesh does not
/// have n points or block < 1.
inline std::vector<ordinal_t> mesh_blocked_row_order(const MeshBlocking& mesh, ordinal_t n) {
  if (!mesh.valid())
    throw InvalidInput(
        "mesh_blocked_row_order: no mesh given (mesh-blocked ordering needs the mesh dimensions; "
        "the driver knows them for gen:lap2d, gen:aniso2d, gen:convdiff2d, gen:lap3d7 and gen:lap3d27 matrices)");
  if (mesh.block < 1)
    throw InvalidInput("mesh_blocked_row_order: block size must be >= 1, got " + std::to_string(mesh.block));
  const std::int64_t points = static_cast<std::int64_t>(mesh.nx) * mesh.ny * mesh.nz;
  if (points != n)
    throw InvalidInput("mesh_blocked_row_order: mesh " + std::to_string(mesh.nx) + " x " + std::to_string(mesh.ny) +
                       " x " + std::to_string(mesh.nz) + " has " + std::to_string(points) + " points, the matrix " +
                       std::to_string(n) + " rows");
  const ordinal_t b = mesh.block;
  const ordinal_t bz = mesh.nz == 1 ? 1 : b;  // a 2D mesh is blocked b x b
  std::vector<ordinal_t> order;
  order.reserve(static_cast<std::size_t>(n));
  for (ordinal_t z0 = 0; z0 < mesh.nz; z0 += bz)
    for (ordinal_t y0 = 0; y0 < mesh.ny; y0 += b)
      for (ordinal_t x0 = 0; x0 < mesh.nx; x0 += b)
        for (ordinal_t z = z0; z < std::min(z0 + bz, mesh.nz); ++z)
          for (ordinal_t y = y0; y < std::min(y0 + b, mesh.ny); ++y)
            for (ordinal_t x = x0; x < std::min(x0 + b, mesh.nx); ++x) order.push_back(x + mesh.nx * (y + mesh.ny * z));
  return order;
}

/// The task list order of a pattern S given by its row pointers (n + 1 entries): result[t] = the CSR position
/// (in S) of the t-th task. `seed` drives the Random ordering (a Fisher–Yates shuffle on std::mt19937_64 raw
/// outputs, so a seed gives the same list with every standard library).
inline std::vector<offset_t> task_order(const std::vector<offset_t>& row_ptr, TaskOrdering ordering,
                                        const MeshBlocking& mesh = MeshBlocking(), std::uint64_t seed = 0) {
  const ordinal_t n = row_ptr.empty() ? 0 : static_cast<ordinal_t>(row_ptr.size() - 1);
  const offset_t nnz = row_ptr.empty() ? 0 : row_ptr.back();
  std::vector<offset_t> order;
  order.reserve(static_cast<std::size_t>(nnz));
  if (ordering == TaskOrdering::MeshBlocked) {
    for (ordinal_t i : mesh_blocked_row_order(mesh, n))
      for (offset_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p) order.push_back(p);
    return order;
  }
  for (offset_t p = 0; p < nnz; ++p) order.push_back(p);
  if (ordering == TaskOrdering::Random) {
    std::mt19937_64 rng(seed);
    for (offset_t k = nnz - 1; k > 0; --k) {
      const offset_t r = static_cast<offset_t>(rng() % static_cast<std::uint64_t>(k + 1));
      std::swap(order[k], order[r]);
    }
  }
  return order;
}

}  // namespace AsyncSparse
