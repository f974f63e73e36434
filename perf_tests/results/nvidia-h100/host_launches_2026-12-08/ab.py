# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# usage: ab.py DIR PREFIX base,variant[,variant...]  -> median per benchmark over rounds, ratio variant/base, ranges
import json, glob, sys, statistics as st, collections
d, pre, vs = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
t = collections.defaultdict(lambda: collections.defaultdict(list))
for v in vs:
    for f in sorted(glob.glob(f'{d}/{pre}_{v}_*.json')):
        try: js = json.load(open(f))
        except Exception: continue
        for b in js['benchmarks']:
            if b.get('run_type') == 'aggregate': continue
            p = b['name'].split('/')
            t[(p[1], p[2])][v].append(b['real_time'])
for k in sorted(t):
    base = t[k][vs[0]]
    if not base: continue
    mb = st.median(base)
    s = f'{k[0]:24s} {k[1]:13s} {vs[0]} {mb:8.3f} [{min(base):.3f}-{max(base):.3f}] n={len(base)}'
    for v in vs[1:]:
        x = t[k][v]
        if x: s += f' | {v} {st.median(x)/mb:.3f} [{min(x):.3f}-{max(x):.3f}]'
    print(s)
