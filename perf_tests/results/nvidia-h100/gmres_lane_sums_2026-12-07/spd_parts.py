# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# What the geometric mean of time(default ParIC) / time(diagonal PCG) over the SPD problems of one headline run is
# made of (iterations, time per iteration, set-up), and what it would be with ParIC's iterations as cheap as diagonal
# PCG's and its set-ups shorter, the rest of the run as measured.
# Usage: python3 spd_parts.py [TTS_JSON]   (default: tts_h_new.json of call1/tts.tgz)
import io, json, math, sys, tarfile

if len(sys.argv) > 1:
    d = json.load(open(sys.argv[1]))
else:
    with tarfile.open("call1/tts.tgz") as t:
        d = json.load(io.TextIOWrapper(t.extractfile("tts_h_new.json")))
rows = {}
for b in d["benchmarks"]:
    n = b["name"].split("/")
    if len(n) >= 3 and b.get("run_type", "iteration") == "iteration":
        rows.setdefault(n[1], {})[n[2]] = b
pairs = [(m, r["par_ic"], r["diagonal"]) for m, r in sorted(rows.items())
         if "par_ic" in r and "diagonal" in r and r["par_ic"].get("converged") and r["diagonal"].get("converged")]
gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
tot = lambda b: b["setup_ms"] + b["solve_ms"]
per_it = lambda b: b["solve_ms"] / b["iterations"]  # time of one iteration in the solve
print(f"{'problem':16s} {'ratio':>6s} {'iters':>6s} {'per-it':>7s} {'setup p/d ms':>14s}")
for m, p, q in pairs:
    print(f"{m:16s} {tot(p)/tot(q):6.3f} {p['iterations']/q['iterations']:6.3f} "
          f"{per_it(p)/per_it(q):7.3f} "
          f"{p['setup_ms']:6.3f}/{q['setup_ms']:.3f}")
it = gm([p["iterations"] / q["iterations"] for _, p, q in pairs])
per = gm([per_it(p) / per_it(q) for _, p, q in pairs])
print(f"\n{len(pairs)} problems: time ratio {gm([tot(p)/tot(q) for _, p, q in pairs]):.3f}, iteration ratio {it:.3f}, "
      f"time per iteration ratio {per:.3f}")


def scaled(per_problem_f, setup_f):
    return gm([(p["setup_ms"] * setup_f + p["solve_ms"] * per_problem_f(p, q)) / tot(q) for _, p, q in pairs])


# a ParIC iteration as measured, or costing what a diagonal PCG iteration costs on the same problem
fs = [("as measured", lambda p, q: 1.0),
      ("iteration = diagonal's", lambda p, q: per_it(q) / per_it(p))]
print("\ngeometric mean with ParIC's set-up times x s (diagonal PCG as measured):")
for name, f in fs:
    print(f"  {name:24s}" + "".join(f"  s={s:<4}: {scaled(f, s):.3f}" for s in (1.0, 0.75, 0.62, 0.5, 0.25, 0.0)))
