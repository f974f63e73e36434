#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Per-kernel device time of two fenced set-up timelines (ktimeline.cpp with KTL_FENCE=1): the time from each
kernel's launch to the end of its fence, summed per label, us. Usage: kernel_times.py BEFORE.txt AFTER.txt [min_us]"""
import sys
from collections import defaultdict


def kernels(path):
    out, prev = defaultdict(float), None
    for line in open(path):
        p = line.split()
        if len(p) < 3:
            continue
        if p[2] == "end" and prev:
            out[prev] += float(p[1])
        elif p[2] in ("for", "reduce", "scan"):
            prev = " ".join(p[2:4])
        else:
            prev = None
        if p[2] == "pop" and p[3].endswith("::compute"):
            break
    return out


a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
least = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
print("| kernel | before | after |\n|---|---:|---:|")
for k in sorted(set(a) | set(b), key=lambda k: -max(a.get(k, 0), b.get(k, 0))):
    if max(a.get(k, 0), b.get(k, 0)) >= least:
        print(f"| {k} | {a.get(k, 0):.1f} | {b.get(k, 0):.1f} |")
print(f"| all kernels | {sum(a.values()):.1f} | {sum(b.values()):.1f} |")
