// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Time to solution: preconditioner set-up plus Krylov solve to a relative residual of 1e-6 (b = ones, x0 = 0),
// for AsyncSparse's preconditioners and for what a user would pick instead, measured in the same process.
//
// Benchmarks time_to_solution/<matrix>/<method>: after one untimed warm-up of the same set-up and two solver
// iterations (so that no method pays for first-launch costs), whole solves (set-up + solve) are repeated and the
// median is reported (Iterations(1), its time the median run): 3 runs, more (up to kMaxRuns) while the runs so far
// took less than kRepeatSeconds, and 1 when the first took more than kSingleRunSeconds. On a GPU one run of a small
// matrix takes 1-10 ms and single runs strayed by up to 15x (a diagonal PCG of ted_b: 1.2 ms in one run, 18.7 ms in
// the next); the counters runs, min_ms and max_ms give the spread. Like a user's repeated set-ups, the runs after
// the warm-up take their device arrays from the library's cache (ASYNCSPARSE_DEVICE_CACHE=0: allocated every run).
// Matrices: L2D (gen:lap2d:1024) and L3D (gen:lap3d27:64) — 256^2 and 24^3 with ASYNCSPARSE_PERF_SCALE=small,
// the default on host backends — and every matrix of the shared folder (ASYNCSPARSE_MATRIX_DIR), in RCM order
// as the driver uses them; or the names and generator specs in ASYNCSPARSE_TTS_PROBLEMS (';'-separated). A matrix is
// solved by PCG when analyze() finds it symmetric with a positive diagonal (the driver's rule), otherwise by
// right-preconditioned GMRES(30); a name with the suffix "@gmres" (L3D@gmres) is solved as a nonsymmetric one
// (GMRES, the LU methods) whatever analyze() finds: the LU preconditioners on 3D grids, which no generator makes
// nonsymmetric.
//
// Methods (PCG matrices / GMRES matrices):
//   none                   no preconditioner
//   diagonal               point Jacobi (make_preconditioner("jacobi"))
//   par_ic / par_ilu       make_preconditioner("par_ic" / "par_ilu", A) with no parameters: what a user gets
//   par_ic_exact, _jacobi, _jacobi1, _jacobi2, _isai, _isai1, _isai_p1, _isai_p2 (par_ilu_* alike)   tri_solve=
//                          exact | jacobi (3, 1, 2 sweeps) | isai (the pattern by isai_power_rule) | isai with one
//                          correction step | isai on T's own pattern | on the pattern of |T|^2
//                          (tri_solve_isai_power=1, 2); a parameter
//                          the build does not know makes the benchmark skip itself with the message
//   par_ic_working (par_ilu_* alike)   the default with an ISAI's values in the working precision
//                          (tri_solve_isai_precision=working) where the rule takes single precision (GPUs)
//   par_ic_one_team, par_ic_launches (par_ilu_* alike)   the default mode with both Jacobi solves in one launch
//                          of one team at any size (tri_solve_one_team_entries=1e9) | never (0); the bound also
//                          gates the one-team exact solve (with 0, 1138_bus and 494_bus solve by cuSPARSE SpSV)
//   par_ic_list / par_ilu_list   the list sweep kernel (sweep_kernel=list): what auto picks instead of the row-team
//                          kernel for a later numeric phase on the pattern (and for the first where the row-team
//                          rule does not apply)
//   par_ic_exact_launches (par_ilu_* alike)   tri_solve=exact without the one-team solve (cuSPARSE SpSV on CUDA,
//                          tri_solve_one_team_entries=0): par_ic_exact takes one team where the triangles fit
//   par_ic_sweeps1, _sweeps2, _sweeps3 (par_ilu_* alike)   the default with 1, 2 or 3 sweeps of the numeric phase
//                          instead of 5 (sweeps=k): what the sweep count buys in iterations and costs in set-up
//   par_ict / par_ilut     make_preconditioner("par_ict" / "par_ilut", A), defaults (steps until the ILU residual
//                          stagnates, at most 30)
//   par_ict_jacobi, _isai (par_ilut_* alike)   the same with tri_solve=jacobi (3 sweeps) | isai
//   par_ict_5steps / par_ilut_5steps   the same with exactly 5 steps (steps=5, stagnation_tolerance=0: the
//                          default before the stagnation rule)
//   kk_spiluk              Kokkos-Kernels spiluk(0) (symbolic + numeric) and the exact triangular solves of
//                          IncompleteFactorPreconditioner (TriSolveKind::Exact without the one-team solve:
//                          cuSPARSE SpSV on CUDA, serial substitution on host backends)
//   cusparse_ic / _ilu     (CUDA) cuSPARSE csric02 / csrilu02 (analysis + factorization) and cuSPARSE SpSV
//                          (IncompleteFactorPreconditioner, ExactAlgorithm::Cusparse): the exact pipeline
// The exact baselines factor A itself (IC(0)/ILU(0) commute with the diagonal scaling the ParIC sweeps use).
// Their set-up time is the factorization (symbolic, analysis, numeric) plus the preconditioner's compute() (the
// triangular solves' analysis); creating the cuSPARSE handle and converting the factors to AsyncSparse's CSR
// layout are left out, which favours the baselines.
//
// Counters: setup_ms, solve_ms, iterations, converged (1/0), status (SolverStatus as a number; the label says it
// in words), final_residual (true relative residual), and speedup_vs_<baseline> = the baseline's time to
// solution / this one's, for the baselines none, diagonal, kk_spiluk and (CUDA) cusparse (= cusparse_ic or
// cusparse_ilu), measured earlier in the same run (they are registered first for every matrix); a speedup is
// given only when both solves converged; shift (the ParIC/ParILU/ParICT/ParILUT preconditioners, when their default
// restart after a breakdown used one: the diagonal shift alpha of A_s + alpha I, parameter "diagonal_shift"; ParICT /
// ParILUT shift only their initial guess where they can, "shift_initial_only"); ordered_runs (of the `runs` set-ups,
// those whose factors came from ordered sweeps, parameter "sweep_order"; left out when none); jacobi_probe (the ParIC /
// ParILU / ParICT / ParILUT preconditioners whose auto rule ran the Jacobi probe of the lower factor: its value,
// TriSolveStats::jacobi_probe). Hopeless
// runs are capped: at most 10000 iterations and ASYNCSPARSE_TTS_MAX_SECONDS seconds of solver time (default 30 on GPUs,
// 10 on host backends); they report converged = 0 and the status. ASYNCSPARSE_TTS_GRAPH_FROM_ITERATION sets
// SolverParams::graph_from_iteration of the CG solves (default: the library's, kGraphFromIteration; 0: never), to
// measure its rule; ASYNCSPARSE_TTS_GMRES_ONE_TEAM_ROWS sets SolverParams::gmres_one_team_rows of the GMRES solves
// (default: the library's rule; 0: never; a large bound: always), counters one_team (1: the GMRES solve orthogonalized
// in one launch of one team) and team_cycles (its cycles run whole in one launch of one team).
//
//   AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/L2D/'
#include "PerfHelpers.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <asyncsparse/AsyncSparse_config.hpp>
#include <asyncsparse/core/AsyncSparse_rcm.hpp>
#include <asyncsparse/core/AsyncSparse_validation.hpp>
#include <asyncsparse/factorization/AsyncSparse_cusparse_baseline.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_factory.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilu_preconditioner.hpp>
#include <asyncsparse/preconditioner/AsyncSparse_par_ilut_preconditioner.hpp>
#include <asyncsparse/solvers/AsyncSparse_gmres.hpp>

namespace {
using namespace AsyncSparse;
using namespace AsyncSparse::Perf;
using CrsD = Crs<double, Device>;
using Vec = Kokkos::View<double*, Device>;

struct Problem {
  std::string name;
  bool spd = true;
};

constexpr const char* kGmresSuffix = "@gmres";

/// The matrix of a problem name: the name without kGmresSuffix.
std::string matrix_name(const std::string& problem) {
  const std::string suffix = kGmresSuffix;
  const bool gmres =
      problem.size() > suffix.size() && problem.compare(problem.size() - suffix.size(), suffix.size(), suffix) == 0;
  return gmres ? problem.substr(0, problem.size() - suffix.size()) : problem;
}

/// L2D, L3D and the shared matrices (their names; SPD by analyze(), as the driver decides), or those listed in
/// ASYNCSPARSE_TTS_PROBLEMS (names or generator specs separated by ';'; with kGmresSuffix: not SPD).
std::vector<Problem> problems() {
  std::vector<std::string> names = env_list("ASYNCSPARSE_TTS_PROBLEMS");
  std::vector<Problem> list;
  if (names.empty()) {
    list = {{"L2D", true}, {"L3D", true}};
    names = shared_matrix_names();
  }
  for (const auto& n : names) {
    try {
      const auto p = analyze(host_matrix(matrix_name(n)));
      list.push_back({n, p.symmetric_values && p.positive_diagonal && matrix_name(n) == n});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "time_to_solution: skipping %s: %s\n", n.c_str(), e.what());
    }
  }
  return list;
}

/// The device matrix of a problem: generated ones as they are, shared ones in RCM order.
const CrsD& problem_matrix(const std::string& name) {
  static std::map<std::string, CrsD> cache;
  static bool hooked = false;
  if (!hooked) {  // the cached Views must go before Kokkos::finalize
    Kokkos::push_finalize_hook([] { cache.clear(); });
    hooked = true;
  }
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  const std::string m = matrix_name(name);
  const auto& Ah = host_matrix(m);
  const bool generated = m == "L2D" || m == "L3D" || m.rfind("gen:", 0) == 0;
  return cache
      .emplace(name, generated ? to_device<Device>(Ah) : to_device<Device>(permute_symmetric(Ah, rcm_permutation(Ah))))
      .first->second;
}

struct Outcome {
  bool ok = false;  ///< set-up succeeded and the solve converged
  double seconds = 0;
};
/// Times of the methods measured so far: outcome[matrix][method].
std::map<std::string, std::map<std::string, Outcome>>& outcomes() {
  static std::map<std::string, std::map<std::string, Outcome>> m;
  return m;
}

/// A preconditioner ready to apply, or nullptr for "none".
using PrecPtr = std::unique_ptr<Preconditioner<double, Device>>;

/// The exact triangular solves of the baselines: `a` (Auto: the library's choice without the one-team solve).
TriSolveOptions baseline_exact(ExactAlgorithm a) {
  TriSolveOptions o;
  o.kind = TriSolveKind::Exact;
  o.exact_algorithm = a;
  o.one_team_entries = 0;
  return o;
}

/// Method name → (factory name, parameter string) of the AsyncSparse preconditioners.
bool factory_method(const std::string& method, std::string& factory, std::string& params) {
  static const std::map<std::string, std::pair<std::string, std::string>> table = {
      {"diagonal", {"jacobi", ""}},
      {"par_ic", {"par_ic", ""}},
      {"par_ilu", {"par_ilu", ""}},
      {"par_ic_exact", {"par_ic", "tri_solve=exact"}},
      {"par_ilu_exact", {"par_ilu", "tri_solve=exact"}},
      {"par_ic_exact_launches", {"par_ic", "tri_solve=exact,tri_solve_one_team_entries=0"}},
      {"par_ilu_exact_launches", {"par_ilu", "tri_solve=exact,tri_solve_one_team_entries=0"}},
      {"par_ic_jacobi", {"par_ic", "tri_solve=jacobi,tri_solve_sweeps=3"}},
      {"par_ilu_jacobi", {"par_ilu", "tri_solve=jacobi,tri_solve_sweeps=3"}},
      {"par_ic_jacobi1", {"par_ic", "tri_solve=jacobi,tri_solve_sweeps=1"}},
      {"par_ilu_jacobi1", {"par_ilu", "tri_solve=jacobi,tri_solve_sweeps=1"}},
      {"par_ic_jacobi2", {"par_ic", "tri_solve=jacobi,tri_solve_sweeps=2"}},
      {"par_ilu_jacobi2", {"par_ilu", "tri_solve=jacobi,tri_solve_sweeps=2"}},
      {"par_ic_isai", {"par_ic", "tri_solve=isai"}},
      {"par_ilu_isai", {"par_ilu", "tri_solve=isai"}},
      {"par_ic_isai1", {"par_ic", "tri_solve=isai,tri_solve_sweeps=1"}},
      {"par_ic_isai_p1", {"par_ic", "tri_solve=isai,tri_solve_isai_power=1"}},
      {"par_ilu_isai_p1", {"par_ilu", "tri_solve=isai,tri_solve_isai_power=1"}},
      {"par_ic_isai_p2", {"par_ic", "tri_solve=isai,tri_solve_isai_power=2"}},
      {"par_ilu_isai_p2", {"par_ilu", "tri_solve=isai,tri_solve_isai_power=2"}},
      {"par_ic_working", {"par_ic", "tri_solve_isai_precision=working"}},
      {"par_ilu_working", {"par_ilu", "tri_solve_isai_precision=working"}},
      {"par_ic_one_team", {"par_ic", "tri_solve_one_team_entries=1000000000"}},
      {"par_ilu_one_team", {"par_ilu", "tri_solve_one_team_entries=1000000000"}},
      {"par_ic_launches", {"par_ic", "tri_solve_one_team_entries=0"}},
      {"par_ilu_launches", {"par_ilu", "tri_solve_one_team_entries=0"}},
      {"par_ic_list", {"par_ic", "sweep_kernel=list"}},
      {"par_ilu_list", {"par_ilu", "sweep_kernel=list"}},
      {"par_ilu_isai1", {"par_ilu", "tri_solve=isai,tri_solve_sweeps=1"}},
      {"par_ic_sweeps1", {"par_ic", "sweeps=1"}},
      {"par_ilu_sweeps1", {"par_ilu", "sweeps=1"}},
      {"par_ic_sweeps2", {"par_ic", "sweeps=2"}},
      {"par_ilu_sweeps2", {"par_ilu", "sweeps=2"}},
      {"par_ic_sweeps3", {"par_ic", "sweeps=3"}},
      {"par_ilu_sweeps3", {"par_ilu", "sweeps=3"}},
      {"par_ict", {"par_ict", ""}},
      {"par_ilut", {"par_ilut", ""}},
      {"par_ict_jacobi", {"par_ict", "tri_solve=jacobi,tri_solve_sweeps=3"}},
      {"par_ilut_jacobi", {"par_ilut", "tri_solve=jacobi,tri_solve_sweeps=3"}},
      {"par_ict_isai", {"par_ict", "tri_solve=isai"}},
      {"par_ilut_isai", {"par_ilut", "tri_solve=isai"}},
      {"par_ict_5steps", {"par_ict", "steps=5,stagnation_tolerance=0"}},
      {"par_ilut_5steps", {"par_ilut", "steps=5,stagnation_tolerance=0"}},
  };
  const auto it = table.find(method);
  if (it == table.end()) return false;
  factory = it->second.first;
  params = it->second.second;
  return true;
}

/// Thrown when a method's parameters are not accepted by this build (the benchmark skips itself).
struct Rejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Builds the preconditioner of `method` for A; `seconds` receives the set-up time as defined in the header.
PrecPtr build(const std::string& method, const CrsD& A, bool spd, double& seconds) {
  seconds = 0;
  if (method == "none") return nullptr;
  std::string factory, params;
  if (factory_method(method, factory, params)) {
    PrecPtr M;
    seconds = timed([&] {
      std::unique_ptr<PreconditionerBase<double, Device>> P;
      try {
        P = make_preconditioner<double, Device>(factory, A, parse_parameter_string(params));
      } catch (const InvalidInput& e) {
        throw Rejected(std::string("parameters '") + params + "' rejected: " + e.what());
      }
      P->compute();
      M = std::move(P);
    });
    return M;
  }
  const Vec no_scaling;
  if (method == "kk_spiluk") {
    KkSpiluk<double, Device> kk;
    PrecPtr M;
    seconds = timed([&] {
      kk.symbolic(A, 0);
      kk.numeric(A);
      M.reset(new IncompleteFactorPreconditioner<double, Device>(A, kk.L(), kk.U(), true, no_scaling,
                                                                 baseline_exact(ExactAlgorithm::Auto), "kk_spiluk"));
      M->compute();
    });
    return M;
  }
#if ASYNCSPARSE_HAVE_CUSPARSE
  if (method == "cusparse_ic" || method == "cusparse_ilu") {
    const bool ic = method == "cusparse_ic";
    CusparseIncompleteFactor<Device> cf;
    cf.setup(A, ic);  // handle, descriptor, buffer: not timed
    const double factor_seconds = cf.factor();
    const auto L = cf.L(), U = cf.U();  // layout conversion: not timed
    PrecPtr M(new IncompleteFactorPreconditioner<double, Device>(A, L, U, !ic, no_scaling,
                                                                 baseline_exact(ExactAlgorithm::Cusparse), method));
    seconds = factor_seconds + timed([&] { M->compute(); });
    return M;
  }
#endif
  (void)spd;
  throw std::logic_error("time_to_solution: unknown method " + method);
}

double max_solver_seconds() {
  return Test::env_number("ASYNCSPARSE_TTS_MAX_SECONDS", paper_scale() ? 30.0 : 10.0, 0.0, 1e6);
}

int graph_from_iteration() {
  return static_cast<int>(Test::env_integer("ASYNCSPARSE_TTS_GRAPH_FROM_ITERATION", SolverParams().graph_from_iteration,
                                            0, std::numeric_limits<int>::max()));
}

int gmres_one_team_rows() {
  return static_cast<int>(Test::env_integer("ASYNCSPARSE_TTS_GMRES_ONE_TEAM_ROWS", SolverParams().gmres_one_team_rows,
                                            -1, std::numeric_limits<int>::max()));
}

SolverResult solve(const CrsD& A, Preconditioner<double, Device>* M, bool spd, int max_iterations) {
  SolverParams p;
  p.tol = 1e-6;
  p.max_iterations = max_iterations;
  p.restart = 30;
  p.record_history = false;
  p.max_seconds = max_solver_seconds();
  p.graph_from_iteration = graph_from_iteration();
  p.gmres_one_team_rows = gmres_one_team_rows();
  Vec b("b", A.numRows()), x("x", A.numRows());
  Kokkos::deep_copy(b, 1.0);
  return spd ? cg<double, Device>(A, b, x, M, p) : gmres<double, Device>(A, b, x, M, p);
}

/// The auto rule's Jacobi probe of the lower factor (Impl::jacobi_probe; -1: not measured, or not an
/// incomplete-factorization preconditioner).
double preconditioner_probe(const Preconditioner<double, Device>* M) {
  if (const auto* p = dynamic_cast<const ParIncompletePreconditioner<double, Device>*>(M))
    return p->lower_solve_stats().jacobi_probe;
  if (const auto* p = dynamic_cast<const ParThresholdPreconditioner<double, Device>*>(M))
    return p->lower_solve_stats().jacobi_probe;
  return -1.0;
}

/// f(the Stats of the factorization) of a ParIC / ParILU / ParICT / ParILUT preconditioner, 0 for the others.
template <class F>
double factor_stat(const Preconditioner<double, Device>* M, F f) {
  if (const auto* p = dynamic_cast<const ParIncompletePreconditioner<double, Device>*>(M))
    return f(p->handle().stats());
  if (const auto* p = dynamic_cast<const ParThresholdPreconditioner<double, Device>*>(M)) return f(p->handle().stats());
  return 0.0;
}

void speedups(benchmark::State& state, const std::string& matrix, const std::string& method, double seconds) {
  const auto& done = outcomes()[matrix];
  const std::pair<const char*, std::vector<std::string>> baselines[] = {
      {"speedup_vs_none", {"none"}},
      {"speedup_vs_diagonal", {"diagonal"}},
      {"speedup_vs_kk_spiluk", {"kk_spiluk"}},
      {"speedup_vs_cusparse", {"cusparse_ic", "cusparse_ilu"}},
  };
  for (const auto& b : baselines)
    for (const auto& name : b.second) {
      const auto it = done.find(name);
      if (name != method && it != done.end() && it->second.ok) state.counters[b.first] = it->second.seconds / seconds;
    }
}

/// One whole solve: set-up and solve seconds, the solver's result, the preconditioner's restart shift.
struct Run {
  double setup = 0, solve = 0, shift = 0, probe = -1;
  bool ordered = false;  ///< the factors came from ordered sweeps (Params::sweep_order)
  SolverResult result;
  double total() const { return setup + solve; }
  static bool faster(const Run& a, const Run& b) { return a.total() < b.total(); }
};
constexpr std::size_t kMinRuns = 3, kMaxRuns = 5;
constexpr double kRepeatSeconds = 0.2, kSingleRunSeconds = 1.0;

/// The run of median total time (of an even count, the faster of the two middle ones).
const Run& median_run(const std::vector<Run>& runs) {
  std::vector<const Run*> order;
  for (const auto& r : runs) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](const Run* a, const Run* b) { return Run::faster(*a, *b); });
  return *order[(order.size() - 1) / 2];
}

void BM_time_to_solution(benchmark::State& state, const Problem& prob, const std::string& method) {
  auto& record = outcomes()[prob.name][method];
  record = Outcome();
  try {
    const auto& A = problem_matrix(prob.name);
    {  // warm-up: the same set-up and two iterations, untimed
      double unused;
      auto M = build(method, A, prob.spd, unused);
      solve(A, M.get(), prob.spd, 2);
    }
    double setup = 0, solve_s = 0, shift = 0, probe = -1;
    SolverResult res;
    std::vector<Run> runs;
    for (auto _ : state) {
      double elapsed = 0;
      while (runs.empty() || (runs.size() < kMinRuns && runs[0].total() <= kSingleRunSeconds) ||
             (runs.size() < kMaxRuns && elapsed < kRepeatSeconds)) {
        Run r;
        auto M = build(method, A, prob.spd, r.setup);
        r.solve = timed([&] { r.result = solve(A, M.get(), prob.spd, 10000); });
        r.shift = factor_stat(M.get(), [](const auto& st) { return st.shift; });
        r.ordered = factor_stat(M.get(), [](const auto& st) { return st.ordered ? 1.0 : 0.0; }) > 0;
        r.probe = preconditioner_probe(M.get());
        elapsed += r.total();
        runs.push_back(r);
      }
      const Run& med = median_run(runs);
      setup = med.setup;
      solve_s = med.solve;
      res = med.result;
      shift = med.shift;
      probe = med.probe;
      state.SetIterationTime(setup + solve_s);
    }
    const double total = setup + solve_s;
    state.counters["runs"] = static_cast<double>(runs.size());
    state.counters["min_ms"] = 1e3 * std::min_element(runs.begin(), runs.end(), Run::faster)->total();
    state.counters["max_ms"] = 1e3 * std::max_element(runs.begin(), runs.end(), Run::faster)->total();
    record.ok = res.converged();
    record.seconds = total;
    set_matrix_counters(state, host_matrix(matrix_name(prob.name)));
    state.counters["setup_ms"] = 1e3 * setup;
    state.counters["solve_ms"] = 1e3 * solve_s;
    state.counters["iterations"] = res.iterations;
    state.counters["converged"] = res.converged() ? 1 : 0;
    state.counters["status"] = static_cast<int>(res.status);
    state.counters["final_residual"] = res.final_relative_residual;
    if (shift > 0) state.counters["shift"] = shift;
    const auto ordered = std::count_if(runs.begin(), runs.end(), [](const Run& r) { return r.ordered; });
    if (ordered > 0) state.counters["ordered_runs"] = static_cast<double>(ordered);
    if (probe >= 0) state.counters["jacobi_probe"] = probe;
    if (!prob.spd) {
      state.counters["one_team"] = res.one_team_orthogonalization ? 1 : 0;
      state.counters["team_cycles"] = res.one_team_cycles;
    }
    state.SetLabel(std::string(prob.spd ? "pcg " : "gmres ") + to_string(res.status) +
                   (res.message.empty() ? "" : ": " + res.message));
    if (record.ok) speedups(state, prob.name, method, total);
  } catch (const Rejected& e) {
    state.SkipWithError(e.what());
  } catch (const std::exception& e) {
    state.SkipWithError((method + " failed: " + e.what()).c_str());
  }
}

std::vector<std::string> methods(bool spd) {
  const std::string f = spd ? "ic" : "ilu";
  std::vector<std::string> m = {"kk_spiluk"};
#if ASYNCSPARSE_HAVE_CUSPARSE
  m.push_back("cusparse_" + f);
#endif
  for (const std::string s : {std::string("none"),
                              std::string("diagonal"),
                              "par_" + f,
                              "par_" + f + "_exact",
                              "par_" + f + "_exact_launches",
                              "par_" + f + "_jacobi",
                              "par_" + f + "_jacobi1",
                              "par_" + f + "_jacobi2",
                              "par_" + f + "_isai",
                              "par_" + f + "_isai1",
                              "par_" + f + "_isai_p1",
                              "par_" + f + "_isai_p2",
                              "par_" + f + "_working",
                              "par_" + f + "_one_team",
                              "par_" + f + "_launches",
                              "par_" + f + "_list",
                              "par_" + f + "_sweeps1",
                              "par_" + f + "_sweeps2",
                              "par_" + f + "_sweeps3",
                              std::string(spd ? "par_ict" : "par_ilut"),
                              std::string(spd ? "par_ict_jacobi" : "par_ilut_jacobi"),
                              std::string(spd ? "par_ict_isai" : "par_ilut_isai"),
                              std::string(spd ? "par_ict_5steps" : "par_ilut_5steps")})
    m.push_back(s);
  return m;
}

void register_all() {
  check_settings([] {
    max_solver_seconds();
    graph_from_iteration();
  });
  static std::vector<Problem> list = problems();
  for (const auto& p : list)
    for (const auto& method : methods(p.spd))
      benchmark::RegisterBenchmark(("time_to_solution/" + p.name + "/" + method).c_str(), BM_time_to_solution, p,
                                   method)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
}

const bool registered = (register_all(), true);

}  // namespace
