// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — recording a fixed sequence of kernel launches once and replaying it (CUDA graphs).
//
// Why: on a GPU, a Kokkos kernel launch costs the host about 5 us (H200, Kokkos 3.4: the launch call itself, the
// occupancy and cache-configuration checks, the profiling hooks). A preconditioned CG iteration on a small system
// is a chain of such launches whose kernels take a few us each on the device, so the host's launching sets the pace
// (perf_tests/results/MEASUREMENTS.md#graph-replay: the ParIC application on the 128² grid, six launches, took 31.1
// us of which the host spent 30.9 us launching). A CUDA graph holds the chain; one cudaGraphLaunch replays it. A
// replayed chain still costs about 4 us per dependent kernel on the device (the same measurement: 27.8 us for the
// replayed iteration's kernels against 33-36 us launched), which then bounds the iteration.
//
// How: GraphReplay::record(exec, work) runs `work` — a callable that only enqueues kernels and copies on `exec`
// (the library's launches reach it through Impl::launch_instance, see LaunchInstanceScope) — under CUDA stream
// capture on exec's stream, and keeps the instantiated graph; replay(exec) launches it. Nothing runs while
// recording: record() returns true and the caller replays the graph to run the work. Where the work cannot be
// captured (a host synchronisation, a launch on the legacy default stream, an allocation that needs a synchronous copy,
// a Kokkos Tools library that fences around kernels), record() ends the capture, discards it and returns false, and the
// caller runs the work directly as before. Record on GraphReplay::instance() (a stream of the calling thread; see there
// what happens to a launch that misses it).
//
// A recorded graph holds the kernels' arguments (the closures, passed as kernel arguments: see
// core/AsyncSparse_policies.hpp), so it replays on the same Views, device scalars and slots: the caller records
// one graph per distinct argument set (CG: one per parity of its double-buffered direction vector). It also holds
// the addresses of the instance's Kokkos reduction scratch as sized when it was recorded: a graph lives for one
// solve, during which no larger reduction runs on the instance. Closures of 4 KB or more would be copied from the
// host's stack (Kokkos' global-memory launch) and must not be recorded; the library's are far smaller.
// Host backends and HIP: record() returns false (the launches there cost little, or no graph is recorded).
#pragma once

#include <Kokkos_Core.hpp>

#include <exception>
#include <memory>

#include <asyncsparse/core/AsyncSparse_errors.hpp>
#include <asyncsparse/core/AsyncSparse_policies.hpp>

namespace AsyncSparse {
namespace Impl {

template <class ExecSpace>
class GraphReplay {
 public:
  GraphReplay() = default;
  GraphReplay(const GraphReplay&) = delete;
  GraphReplay& operator=(const GraphReplay&) = delete;
  ~GraphReplay() { reset(); }

  /// Whether graphs can be recorded here at all: a CUDA execution space and no Kokkos Tools library loaded (tools
  /// may fence around each kernel, which a capture does not allow).
  static bool available() {
#if defined(KOKKOS_ENABLE_CUDA)
    return std::is_same<ExecSpace, Kokkos::Cuda>::value && !Kokkos::Profiling::profileLibraryLoaded();
#else
    return false;
#endif
  }

  /// The instance to record and replay on: on CUDA, an instance on a blocking stream of its own, one per host
  /// thread (a capture takes every launch into its stream, whichever thread issues it, so threads must not share
  /// it), created on first use and released when Kokkos finalizes. Its work is not ordered with the default
  /// instance's by itself: follow_default() orders it after, a fence of it before what comes next. Where the default
  /// instance is the legacy stream (Kokkos 3.4), a launch that misses this instance during a recording invalidates
  /// the capture (CUDA's implicit synchronisation of the legacy stream); with Kokkos 4 the default instance has a
  /// stream of its own, and such a launch would run at once, outside the graph: every launch on a replayable path
  /// goes through launch_instance (the unit tests compare replayed and launched solves bit for bit). Other
  /// backends: the default instance.
  static ExecSpace instance() {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      // on the heap: the finalize hook may run after this thread's exit
      static thread_local std::unique_ptr<Kokkos::Cuda>* slot = [] {
        auto* p = new std::unique_ptr<Kokkos::Cuda>;
        cudaStream_t stream = nullptr;
        if (cudaStreamCreate(&stream) != cudaSuccess) throw Error("GraphReplay: cudaStreamCreate failed");
        p->reset(new Kokkos::Cuda(stream));
        Kokkos::push_finalize_hook([p, stream] {
          p->reset();
          cudaStreamDestroy(stream);
        });
        return p;
      }();
      if (!*slot) throw Error("GraphReplay::instance: Kokkos was finalized");
      return **slot;
    }
#endif
    return ExecSpace();
  }

  /// Orders the work launched on `exec` from now on after the work launched so far on the default instance (an
  /// event on the default instance's stream that exec's stream waits for; nothing on other backends).
  static void follow_default(const ExecSpace& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      cudaEvent_t e = nullptr;
      if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess ||
          cudaEventRecord(e, Kokkos::Cuda().cuda_stream()) != cudaSuccess ||
          cudaStreamWaitEvent(exec.cuda_stream(), e, 0) != cudaSuccess) {
        if (e) cudaEventDestroy(e);
        throw Error("GraphReplay::follow_default: ordering the streams failed");
      }
      cudaEventDestroy(e);  // released once the wait is done
      return;
    }
#endif
    (void)exec;
  }

  /// Records `work` (see the header comment). True: a graph is kept and nothing ran; false: nothing recorded and
  /// nothing ran (the caller runs `work` itself).
  template <class Work>
  bool record(const ExecSpace& exec, Work&& work) {
    reset();
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      if (!available()) return false;
      const cudaStream_t stream = exec.cuda_stream();
      if (stream == nullptr) return false;  // the legacy default stream cannot be captured
      if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
      }
      bool ok = true;
      try {
        LaunchInstanceScope<ExecSpace> scope(exec);
        work();
      } catch (...) {  // whatever it is, the capture must end (the caller runs the work again, uncaptured)
        ok = false;
      }
      cudaGraph_t graph = nullptr;
      const cudaError_t end = cudaStreamEndCapture(stream, &graph);
      ok = ok && end == cudaSuccess && graph != nullptr;
      if (ok && cudaGraphInstantiate(&exec_, graph, 0) != cudaSuccess) {
        exec_ = nullptr;
        ok = false;
      }
      if (graph) cudaGraphDestroy(graph);
      (void)cudaGetLastError();  // capture errors are not sticky; clear the one a failed capture left
      return ok;
    }
#endif
    (void)exec, (void)work;
    return false;
  }

  bool recorded() const {
#if defined(KOKKOS_ENABLE_CUDA)
    return exec_ != nullptr;
#else
    return false;
#endif
  }

  /// Launches the recorded graph on exec's stream (asynchronously, as the launches it holds).
  void replay(const ExecSpace& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      if (!exec_) throw Error("GraphReplay::replay: nothing recorded");
      if (cudaGraphLaunch(exec_, exec.cuda_stream()) != cudaSuccess) throw Error("GraphReplay: cudaGraphLaunch failed");
      return;
    }
#endif
    (void)exec;
    throw Error("GraphReplay::replay: nothing recorded");
  }

  void reset() {
#if defined(KOKKOS_ENABLE_CUDA)
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
#endif
  }

 private:
#if defined(KOKKOS_ENABLE_CUDA)
  cudaGraphExec_t exec_ = nullptr;
#endif
};

}  // namespace Impl
}  // namespace AsyncSparse
