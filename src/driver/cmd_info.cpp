// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// asyncsparse info — what a matrix looks like: size, symmetry, diagonal dominance, bandwidth before and after
// reverse Cuthill–McKee. Host code only: runs without initialising Kokkos (no GPU needed).
#include <asyncsparse/core/AsyncSparse_rcm.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>

#include <chrono>

#include "driver_cli.hpp"
#include "driver_problem.hpp"

namespace AsyncSparse {
namespace Driver {
namespace cmd_info_local {

class Info : public Command {
 public:
  void define(Cli& cli) override {
    cli.about("Print size, symmetry, diagonal dominance and bandwidth (natural and RCM order) of a matrix.");
    add_matrix_argument(cli, problem_);
  }
  bool needs_device() const override { return false; }
  int run(Json& rec) override {
    const Problem pb = load_problem("info", problem_, rec, /*checked=*/false);
    const auto& A = pb.A;
    const auto p = analyze(A);
    ordinal_t bw_rcm = -1;
    if (A.square() && A.nrows > 0) {
      const auto t0 = std::chrono::steady_clock::now();
      bw_rcm = bandwidth(permute_symmetric(A, rcm_permutation(A)));
      rec["rcm_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    report(pb, p, bw_rcm, rec);
    return 0;
  }

 private:
  static void report(const Problem& pb, const MatrixProperties& p, ordinal_t bw_rcm, Json& rec) {
    Table t({"property", "value"});
    auto yes = [](bool b) { return std::string(b ? "yes" : "no"); };
    t.row({"matrix", pb.name});
    t.row({"rows x cols", std::to_string(p.nrows) + " x " + std::to_string(p.ncols)});
    t.row({"nnz", std::to_string(p.nnz)});
    t.row({"nnz/row min/avg/max",
           std::to_string(p.nnz_row_min) + " / " + fmt("%.2f", p.nnz_row_avg) + " / " + std::to_string(p.nnz_row_max)});
    t.row({"symmetric pattern", yes(p.symmetric_pattern)});
    t.row({"symmetric values", yes(p.symmetric_values)});
    t.row({"diagonal present",
           p.diagonal_present ? "yes" : "no (" + std::to_string(p.missing_diagonal) + " rows missing)"});
    t.row({"positive diagonal", yes(p.positive_diagonal)});
    t.row({"diag. dominant rows", std::to_string(p.diag_dominant_rows) + " of " + std::to_string(p.nrows)});
    t.row({"min |a_ii|/sum|a_ij|", fmt("%.4g", p.min_dominance_ratio)});
    t.row({"finite values", yes(p.finite)});
    t.row({"bandwidth (natural)", std::to_string(p.bandwidth)});
    t.row({"bandwidth (RCM)", bw_rcm < 0 ? "n/a" : std::to_string(bw_rcm)});
    t.print();
    Json props = Json::object();
    props["nrows"] = p.nrows;
    props["ncols"] = p.ncols;
    props["nnz"] = p.nnz;
    props["nnz_row_min"] = p.nnz_row_min;
    props["nnz_row_max"] = p.nnz_row_max;
    props["nnz_row_avg"] = p.nnz_row_avg;
    props["symmetric_pattern"] = p.symmetric_pattern;
    props["symmetric_values"] = p.symmetric_values;
    props["diagonal_present"] = p.diagonal_present;
    props["missing_diagonal"] = p.missing_diagonal;
    props["positive_diagonal"] = p.positive_diagonal;
    props["diag_dominant_rows"] = p.diag_dominant_rows;
    props["min_dominance_ratio"] = p.min_dominance_ratio;
    props["finite"] = p.finite;
    props["bandwidth"] = p.bandwidth;
    props["bandwidth_rcm"] = bw_rcm;
    rec["properties"] = props;
  }

  ProblemOptions problem_;
};

Registrar reg("info",
              "matrix properties: size, symmetry, diagonal dominance, bandwidth before/after RCM (no GPU needed)",
              [] { return std::unique_ptr<Command>(new Info); });

}  // namespace cmd_info_local
}  // namespace Driver
}  // namespace AsyncSparse
