// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GoogleTest main of the Ifpack2 adapter tests: Tpetra::ScopeGuard initialises MPI and Kokkos. Under
// mpirun every process runs every test (all helpers are collective); only rank 0 prints the usual
// GoogleTest output, other ranks print their failures, and the exit code is non-zero on any rank
// that failed.
#include <gtest/gtest.h>
#include <Tpetra_Core.hpp>

#include <cstdio>

namespace {
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char* argv[]) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = Tpetra::getDefaultComm()->getRank();
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  return RUN_ALL_TESTS();
}
