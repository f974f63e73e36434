# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Warp-stall samples of an Nsight Compute source page (ncu -i R --page source --csv --print-source sass) summed over
# the stretches of SASS between two barriers (BAR.SYNC), largest first: which phase of a one-team kernel waits, on what.
# Usage: python3 sass_regions.py SASS_CSV [COUNT]   (a .csv.gz is read as well)
import collections, csv, gzip, sys

rows = list(csv.reader((gzip.open if sys.argv[1].endswith('.gz') else open)(sys.argv[1], 'rt')))
hdr, data = rows[1], rows[2:]
ix = {h: i for i, h in enumerate(hdr)}
S, E, SRC = ix['Warp Stall Sampling (All Samples)'], ix['Instructions Executed'], ix['Source']
stalls = [h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
num = lambda r, c: int(r[c] or 0)
tot = sum(num(r, S) for r in data)
print('total samples', tot, 'instructions', len(data))
regions, cur = [], []
for k, r in enumerate(data):
    cur.append(k)
    if r[SRC].strip().startswith('BAR'):
        regions.append(cur)
        cur = []
regions.append(cur)
out = []
for g in regions:
    st = collections.Counter()
    for k in g:
        for h in stalls:
            st[h] += num(data[k], ix[h])
    out.append((sum(num(data[k], S) for k in g), g, st, sum(num(data[k], E) for k in g)))
for s, g, st, ex in sorted(out, key=lambda x: -x[0])[:int(sys.argv[2]) if len(sys.argv) > 2 else 15]:
    top = ', '.join(f"{h[6:]} {v}" for h, v in st.most_common(4))
    loads = sum(1 for k in g if 'LDG' in data[k][SRC])
    print(f"{s:7d} {100 * s / tot:5.1f}%  [{g[0]}..{g[-1]}] n={len(g)} LDG={loads} exec={ex}  {top}  "
          f"end: {data[g[-1]][SRC].strip()[:40]}")
