# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# usage: kc.py DIR -> per process: the benchmark's solve/setup and the fenced cycle launches (us), their CPUs
import json, glob, sys, statistics as st
d = sys.argv[1]
for f in sorted(glob.glob(f'{d}/kc_*.txt')):
    r = f[:-4]
    try:
        b = [x for x in json.load(open(r + '.json'))['benchmarks'] if 'par_ilu' in x['name']][0]
        bs = f"real {b['real_time']:.3f} setup {b['setup_ms']:.3f} solve {b['solve_ms']:.3f} it {b['iterations']:.0f}"
    except Exception as e:
        bs = f'no json ({e})'
    L = [l.split() for l in open(f) if l.strip()]
    us = [float(l[0]) for l in L]
    cpus = sorted({l[1] for l in L} | {l[2] for l in L})
    print(f"{r.split('/')[-1]}: {bs} | launches {len(us)} med {st.median(us) if us else 0:.0f} us, "
          f"first six {[round(u) for u in us[:6]]}, max {max(us) if us else 0:.0f}; cpus {cpus[:6]}")
