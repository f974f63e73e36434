// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

namespace AsyncSparse {
namespace Impl {

/// Adjacency of A + A^T without self loops, sorted and unique per node.
struct RcmGraph {
  std::vector<offset_t> ptr;
  std::vector<ordinal_t> adj;
  ordinal_t degree(ordinal_t v) const { return static_cast<ordinal_t>(ptr[v + 1] - ptr[v]); }
};

template <class Scalar>
RcmGraph symmetrised_graph(const CsrHost<Scalar>& A) {
  const ordinal_t n = A.nrows;
  std::vector<std::int64_t> count(static_cast<std::size_t>(n) + 1, 0);
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] != i) ++count[i + 1], ++count[A.col_idx[k] + 1];
  for (ordinal_t i = 0; i < n; ++i) count[i + 1] += count[i];
  std::vector<ordinal_t> adj(static_cast<std::size_t>(count[n]));
  std::vector<std::int64_t> next(count.begin(), count.end() - 1);
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const ordinal_t j = A.col_idx[k];
      if (j == i) continue;
      adj[next[i]++] = j;
      adj[next[j]++] = i;
    }
  RcmGraph g;
  g.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  std::size_t out = 0;
  for (ordinal_t i = 0; i < n; ++i) {
    auto b = adj.begin() + count[i], e = adj.begin() + count[i + 1];
    std::sort(b, e);
    for (auto it = b; it != e; ++it)
      if (it == b || *it != *(it - 1)) adj[out++] = *it;
    if (out > static_cast<std::size_t>(max_stored_entries))
      throw InvalidInput("rcm_permutation: the symmetrised pattern has more entries than a matrix holds: at most " +
                         max_stored_entries_text());
    g.ptr[i + 1] = static_cast<offset_t>(out);
  }
  adj.resize(out);
  g.adj = std::move(adj);
  return g;
}

/// Breadth-first level structure from `root`; `mark` / `stamp` avoid clearing between searches.
struct LevelStructure {
  std::vector<ordinal_t> nodes;    ///< BFS order
  std::vector<std::size_t> start;  ///< level l = nodes[start[l] .. start[l+1])
  std::size_t depth() const { return start.size() - 2; }
};

inline LevelStructure bfs_levels(const RcmGraph& g, ordinal_t root, std::vector<int>& mark, int stamp) {
  LevelStructure L;
  L.nodes.push_back(root);
  L.start = {0, 1};
  mark[root] = stamp;
  while (true) {
    const std::size_t b = L.start[L.start.size() - 2], e = L.start.back();
    for (std::size_t q = b; q < e; ++q)
      for (offset_t k = g.ptr[L.nodes[q]]; k < g.ptr[L.nodes[q] + 1]; ++k)
        if (mark[g.adj[k]] != stamp) {
          mark[g.adj[k]] = stamp;
          L.nodes.push_back(g.adj[k]);
        }
    if (L.nodes.size() == e) break;
    L.start.push_back(L.nodes.size());
  }
  return L;
}

/// Minimum degree node (smallest index on ties) among nodes[b, e).
inline ordinal_t min_degree_node(const RcmGraph& g, const std::vector<ordinal_t>& nodes, std::size_t b, std::size_t e) {
  ordinal_t best = nodes[b];
  for (std::size_t q = b + 1; q < e; ++q) {
    const ordinal_t v = nodes[q];
    if (g.degree(v) < g.degree(best) || (g.degree(v) == g.degree(best) && v < best)) best = v;
  }
  return best;
}

inline void validate_permutation(const std::string& where, const std::vector<ordinal_t>& perm, std::size_t n,
                                 std::vector<ordinal_t>& inv) {
  if (perm.size() != n)
    throw InvalidInput(where + ": permutation has " + std::to_string(perm.size()) + " entries, expected " +
                       std::to_string(n));
  inv.assign(n, -1);
  for (std::size_t k = 0; k < n; ++k) {
    const ordinal_t p = perm[k];
    if (p < 0 || static_cast<std::size_t>(p) >= n)
      throw InvalidInput(where + ": perm[" + std::to_string(k) + "] = " + std::to_string(p) + " is outside [0, " +
                         std::to_string(n) + ")");
    if (inv[p] >= 0)
      throw InvalidInput(where + ": not a permutation: " + std::to_string(p) + " appears twice (perm[" +
                         std::to_string(inv[p]) + "] and perm[" + std::to_string(k) + "])");
    inv[p] = static_cast<ordinal_t>(k);
  }
}

}  // namespace Impl

template <class Scalar>
std::vector<ordinal_t> rcm_permutation(const CsrHost<Scalar>& A) {
  check_square(A, "rcm_permutation");
  const ordinal_t n = A.nrows;
  const Impl::RcmGraph g = Impl::symmetrised_graph(A);
  std::vector<int> mark(static_cast<std::size_t>(n), 0);
  int stamp = 0;
  std::vector<char> numbered(static_cast<std::size_t>(n), 0);
  std::vector<ordinal_t> order;
  order.reserve(static_cast<std::size_t>(n));
  std::vector<ordinal_t> nbrs;
  for (ordinal_t s = 0; s < n; ++s) {
    if (numbered[s]) continue;
    // Component of s, its minimum-degree node, then George–Liu iterations to a pseudo-peripheral node.
    Impl::LevelStructure L = Impl::bfs_levels(g, s, mark, ++stamp);
    ordinal_t root = Impl::min_degree_node(g, L.nodes, 0, L.nodes.size());
    if (root != s) L = Impl::bfs_levels(g, root, mark, ++stamp);
    while (true) {
      const ordinal_t x = Impl::min_degree_node(g, L.nodes, L.start[L.start.size() - 2], L.start.back());
      Impl::LevelStructure Lx = Impl::bfs_levels(g, x, mark, ++stamp);
      if (Lx.depth() <= L.depth()) break;
      root = x;
      L = std::move(Lx);
    }
    // Cuthill–McKee from root: neighbours numbered by increasing degree, then index.
    std::size_t head = order.size();
    order.push_back(root);
    numbered[root] = 1;
    while (head < order.size()) {
      const ordinal_t v = order[head++];
      nbrs.clear();
      for (offset_t k = g.ptr[v]; k < g.ptr[v + 1]; ++k)
        if (!numbered[g.adj[k]]) nbrs.push_back(g.adj[k]);
      std::sort(nbrs.begin(), nbrs.end(), [&g](ordinal_t a, ordinal_t b) {
        return g.degree(a) != g.degree(b) ? g.degree(a) < g.degree(b) : a < b;
      });
      for (ordinal_t w : nbrs) {
        numbered[w] = 1;
        order.push_back(w);
      }
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

inline std::vector<ordinal_t> inverse_permutation(const std::vector<ordinal_t>& perm) {
  std::vector<ordinal_t> inv;
  Impl::validate_permutation("inverse_permutation", perm, perm.size(), inv);
  return inv;
}

template <class Scalar>
CsrHost<Scalar> permute_symmetric(const CsrHost<Scalar>& A, const std::vector<ordinal_t>& perm) {
  check_square(A, "permute_symmetric");
  std::vector<ordinal_t> inv;
  Impl::validate_permutation("permute_symmetric", perm, static_cast<std::size_t>(A.nrows), inv);
  CsrHost<Scalar> B(A.nrows, A.ncols);
  B.col_idx.resize(A.col_idx.size());
  B.values.resize(A.values.size());
  std::vector<std::pair<ordinal_t, Scalar>> row;
  offset_t out = 0;
  for (ordinal_t r = 0; r < A.nrows; ++r) {
    const ordinal_t old = perm[r];
    row.clear();
    for (offset_t k = A.row_ptr[old]; k < A.row_ptr[old + 1]; ++k) row.emplace_back(inv[A.col_idx[k]], A.values[k]);
    std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& e : row) {
      B.col_idx[out] = e.first;
      B.values[out] = e.second;
      ++out;
    }
    B.row_ptr[r + 1] = out;
  }
  return B;
}

template <class T>
std::vector<T> permute_vector(const std::vector<T>& x, const std::vector<ordinal_t>& perm) {
  std::vector<ordinal_t> inv;
  Impl::validate_permutation("permute_vector", perm, x.size(), inv);
  std::vector<T> y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) y[k] = x[perm[k]];
  return y;
}

template <class T>
std::vector<T> unpermute_vector(const std::vector<T>& y, const std::vector<ordinal_t>& perm) {
  std::vector<ordinal_t> inv;
  Impl::validate_permutation("unpermute_vector", perm, y.size(), inv);
  std::vector<T> x(y.size());
  for (std::size_t k = 0; k < y.size(); ++k) x[perm[k]] = y[k];
  return x;
}

template <class Scalar>
ordinal_t bandwidth(const CsrHost<Scalar>& A) {
  check_structure(A, "bandwidth");
  ordinal_t bw = 0;
  for (ordinal_t i = 0; i < A.nrows; ++i)
    for (offset_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      bw = std::max(bw, A.col_idx[k] > i ? A.col_idx[k] - i : i - A.col_idx[k]);
  return bw;
}

}  // namespace AsyncSparse
