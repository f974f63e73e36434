// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — a few device scalars read back by the host without stopping the device.
//
// The Krylov solvers keep their reduction results (dot products, norms) on the device, where the next
// kernels read them; the host needs them only for the convergence test. ScalarReadback holds those
// scalars in a device View and copies them to the host on request:
//
//   post(exec)  enqueues the copy behind the kernels already launched on `exec` and returns at once;
//   wait()      blocks until that copy (and only that copy) is done and returns the host values.
//
// Between post() and wait() the caller may launch more kernels (work that does not depend on the
// host's decision, e.g. the next matrix-vector product), so the device stays busy while the host
// waits. On CUDA the host copy is page-locked memory, the copy a cudaMemcpyAsync on the instance's
// stream and the wait a cudaEventSynchronize on an event recorded after it. On other backends post()
// copies synchronously (host backends: the device View is the host View, nothing is copied) and
// wait() only returns the values.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_view_alloc.hpp>

namespace AsyncSparse {

namespace Impl {
/// Throws InvalidInput naming `who` when `slot` is not an index of the device scalars `s` (a solver's reduction
/// target, e.g. ScalarReadback::device()).
template <class View>
void check_scalar_slot(const std::string& who, const View& s, int slot) {
  if (slot < 0 || static_cast<std::size_t>(slot) >= s.extent(0))
    throw InvalidInput(who + ": slot " + std::to_string(slot) + " outside the " + std::to_string(s.extent(0)) +
                       " scalars");
}
}  // namespace Impl

template <class Device>
class ScalarReadback {
 public:
  using execution_space = typename Device::execution_space;
  using device_view = Kokkos::View<double*, Device>;

  /// `count` device scalars, zero-initialised.
  explicit ScalarReadback(int count, const std::string& label = "AsyncSparse::scalars")
      : d_(Impl::cached_uninitialized<device_view>(label.c_str(), static_cast<std::size_t>(count))) {
    Kokkos::deep_copy(d_, 0.0);
#if defined(KOKKOS_ENABLE_CUDA)
    if (std::is_same<execution_space, Kokkos::Cuda>::value) {
      pinned_ = Impl::cached_uninitialized<pinned_view>((label + "_host").c_str(), static_cast<std::size_t>(count));
      for (int k = 0; k < count; ++k) pinned_(k) = 0.0;
      host_ = pinned_.data();
      if (cudaEventCreateWithFlags(&event_, cudaEventDisableTiming) != cudaSuccess)
        throw Error("ScalarReadback: cudaEventCreateWithFlags failed");
      return;
    }
#endif
    mirror_ = Kokkos::create_mirror_view(d_);
    host_ = mirror_.data();
  }
  ScalarReadback(const ScalarReadback&) = delete;
  ScalarReadback& operator=(const ScalarReadback&) = delete;
  ~ScalarReadback() {
#if defined(KOKKOS_ENABLE_CUDA)
    if (event_) cudaEventDestroy(event_);
#endif
  }

  /// The device scalars (kernels read and write them).
  const device_view& device() const { return d_; }
  int size() const { return static_cast<int>(d_.extent(0)); }

  /// Enqueue the copy of the device scalars to the host behind the work already launched on `exec`.
  void post(const execution_space& exec = execution_space()) {
#if defined(KOKKOS_ENABLE_CUDA)
    if (event_) {
      Kokkos::deep_copy(exec, pinned_, d_);
      if (cudaEventRecord(event_, exec.cuda_stream()) != cudaSuccess)
        throw Error("ScalarReadback: cudaEventRecord failed");
      return;
    }
#endif
    Kokkos::deep_copy(exec, mirror_, d_);
    exec.fence();
  }

  /// Wait for the last post() and return the host copy (size() values, valid until the next post()).
  const double* wait() {
#if defined(KOKKOS_ENABLE_CUDA)
    if (event_ && cudaEventSynchronize(event_) != cudaSuccess)
      throw Error("ScalarReadback: cudaEventSynchronize failed");
#endif
    return host_;
  }

 private:
  device_view d_;
  typename device_view::HostMirror mirror_;
#if defined(KOKKOS_ENABLE_CUDA)
  using pinned_view = Kokkos::View<double*, Kokkos::CudaHostPinnedSpace>;
  pinned_view pinned_;
  cudaEvent_t event_ = nullptr;
#endif
  const double* host_ = nullptr;
};

}  // namespace AsyncSparse
