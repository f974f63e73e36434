// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — block-asynchronous relaxation async-(k) as a preconditioner ("block_async").
//
// apply(x, z): z ~ A^{-1} x by `global_iters` global iterations of async-(k) (block_async_apply; Anzt, Tomov,
// Dongarra, Heuveline 2011; see relaxation/AsyncSparse_block_async.hpp) on A z = x from z = 0 — the relaxation
// used as a smoother / polynomial-type preconditioner. initialize() is block_async_symbolic, compute()
// block_async_numeric (so a new matrix with the same pattern reuses the per-block split). In deterministic mode the
// operator is fixed and, for symmetric A, symmetric (block-Jacobi with k local Jacobi sweeps, a polynomial in the
// block-diagonal scaled A applied from zero), so PCG may use it when the iteration converges. In asynchronous mode (the
// default) every application differs slightly: use it with GMRES, or with CG only as an inexact preconditioner.
//
// Parameters (setParameters):
//   local_iters (int, 5)        k of async-(k)
//   global_iters (int, 2)       global iterations per application
//   block_size (int, -1)        rows per block (-1: chunk_size when given, else 512 on GPUs, 1024 on host backends)
//   tau (double, 1.0)           relaxation weight (0: estimate 2 / (lambda_min + lambda_max) of D^{-1} A)
//   deterministic (bool, false) block-Jacobi double buffering (fixed, reproducible operator)
//   the launch parameters of exec/AsyncSparse_launch_parameters.hpp (team_size, vector_length, block_order, ...);
//   given ones override the LaunchConfig passed to the constructor
#pragma once

#include <asyncsparse/exec/AsyncSparse_launch_parameters.hpp>
#include <asyncsparse/relaxation/AsyncSparse_block_async.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_preconditioner.hpp>

namespace AsyncSparse {

template <class Scalar, class Device>
class BlockAsyncPreconditioner final : public PreconditionerBase<Scalar, Device> {
  using B = PreconditionerBase<Scalar, Device>;

 public:
  explicit BlockAsyncPreconditioner(const typename B::matrix_type& A, const LaunchConfig& launch = LaunchConfig())
      : B(A), base_launch_(launch), launch_(launch) {}
  std::string name() const override { return "BlockAsync"; }
  const ParameterSpec& parameter_spec() const override {
    static const ParameterSpec spec = [] {
      ParameterSpec s;
      s.add("local_iters", 5, "k of async-(k): local Jacobi sweeps per block")
          .add("global_iters", 2, "global iterations of async-(k) per application")
          .add("block_size", -1, "rows per block (-1: chunk_size, or 512 on GPUs, 1024 on host)")
          .add("tau", 1.0, "relaxation weight (0: estimate 2/(lmin+lmax))")
          .add("deterministic", false, "block-Jacobi double buffering");
      return add_launch_parameters(s);
    }();
    return spec;
  }
  std::string description() const override {
    return std::string("BlockAsync(async-(") + std::to_string(params_.local_iters) + ") x " +
           std::to_string(params_.global_iters) + (params_.deterministic ? ", deterministic" : "") + ")";
  }
  const BlockAsyncHandle<Scalar, Device>& handle() const { return handle_; }

 protected:
  void set_parameters_impl(const ParameterList& list) override {
    BlockAsyncParams p;
    p.local_iters = list.get("local_iters", 5);
    p.block_size = list.get("block_size", -1);
    p.tau = list.get("tau", 1.0);
    p.deterministic = list.get("deterministic", false);
    p.global_iters = list.get("global_iters", 2);
    if (p.global_iters < 1)
      throw InvalidInput("BlockAsync: global_iters must be >= 1, got " + std::to_string(p.global_iters));
    launch_ = launch_config_from_parameters(list, name(), base_launch_);
    handle_ = BlockAsyncHandle<Scalar, Device>(p, launch_);
    Impl::check_block_async_params("BlockAsync", handle_);
    params_ = p;
  }
  void initialize_impl() override {
    handle_ = BlockAsyncHandle<Scalar, Device>(params_, launch_);
    block_async_symbolic(typename B::execution_space(), handle_, this->A_);
  }
  void compute_impl() override { block_async_numeric(typename B::execution_space(), handle_, this->A_); }
  void apply_impl(const typename B::const_vector_type& x, const typename B::vector_type& z) override {
    Kokkos::deep_copy(z, Scalar(0));
    block_async_apply(typename B::execution_space(), handle_, x, z);
  }

 private:
  LaunchConfig base_launch_;  ///< the constructor's; launch parameters given to setParameters override its fields
  LaunchConfig launch_;
  BlockAsyncParams params_;
  BlockAsyncHandle<Scalar, Device> handle_;
};

// Explicit instantiation (cmake/AsyncSparseETI.cmake): the compiled library holds these for the configured scalars
// and devices; other types are instantiated from the definitions above.
#define ASYNCSPARSE_ETI_BLOCK_ASYNC_PRECONDITIONER(EXTERN, S, D)                                                      \
  EXTERN template class BlockAsyncPreconditioner<S, D>;
ASYNCSPARSE_ETI_DECLARE_DOUBLE(ASYNCSPARSE_ETI_BLOCK_ASYNC_PRECONDITIONER)

}  // namespace AsyncSparse
