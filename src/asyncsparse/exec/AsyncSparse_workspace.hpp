// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — working arrays kept between the steps of an iterative method.
//
// A method that rebuilds its patterns at every step (ParILUT / ParICT: candidates, removal, transposes) needs some
// seventy temporary arrays per step; Workspace keeps them in one BufferPool per element type
// (core/AsyncSparse_buffer_pool.hpp: the pool's rules), so that after the first steps a step allocates nothing.
#pragma once

#include <asyncsparse/core/AsyncSparse_buffer_pool.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>

namespace AsyncSparse {

/// One BufferPool per element type a method uses: get<View>(n) picks the pool of View's value type. The types are
/// listed once each (duplicates, e.g. Scalar = double or offset_t = ordinal_t, are served by the first match).
template <class Device, class... Ts>
class Workspace {
 public:
  template <class View>
  View get(std::size_t n, const std::string& label = "AsyncSparse::workspace") {
    using T = typename View::non_const_value_type;
    static_assert(View::rank == 1, "Workspace::get: rank-1 Views only");
    return pool<T, 0>().get(n, label);
  }
  void release_free() {
    std::apply([](auto&... p) { (p.release_free(), ...); }, pools_);
  }
  WorkspaceStats stats() const {
    WorkspaceStats s;
    std::apply([&](const auto&... p) { ((s += p.stats()), ...); }, pools_);
    return s;
  }
  void reset_counters() {
    std::apply([](auto&... p) { (p.reset_counters(), ...); }, pools_);
  }
  void set_poison(bool on) {
    std::apply([on](auto&... p) { (p.set_poison(on), ...); }, pools_);
  }

 private:
  template <class T, std::size_t I>
  auto& pool() {
    static_assert(I < sizeof...(Ts), "Workspace::get: no pool for this value type");
    if constexpr (std::is_same<typename std::tuple_element<I, std::tuple<Ts...>>::type, T>::value)
      return std::get<I>(pools_);
    else
      return pool<T, I + 1>();
  }
  std::tuple<BufferPool<Ts, Device>...> pools_;
};

}  // namespace AsyncSparse
