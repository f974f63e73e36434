# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The timed (second) ParIC set-up window of a kokkos_timeline.cpp timeline: events whose gap exceeds THRESHOLD us,
# and the gaps per event kind. Usage: python3 setup_window.py MATRIX [THRESHOLD] (in the folder of tl_MATRIX_par_ic.tsv).
import sys
def load(f):
    ev=[]
    for line in open(f):
        p=line.rstrip('\n').split('\t')
        ev.append((float(p[0]),p[1],p[2],int(p[3])))
    return ev
m=sys.argv[1]; thr=float(sys.argv[2]) if len(sys.argv)>2 else 15
ev=load(f'tl_{m}_par_ic.tsv')
starts=[i for i,e in enumerate(ev) if e[1]=='alloc' and e[2].endswith('par_ilu::diag')]
print(m,'set-ups at',starts)
s=starts[-1]
e=next(i for i in range(s,len(ev)) if ev[i][1]=='alloc' and ev[i][2].endswith(' b'))
s0=s-2
tot={}; prev=ev[s0][0]; allocs=0; alloc_t=0
for i in range(s0,e+1):
    t,k,n,b=ev[i]; gap=t-prev; prev=t
    tot[k]=tot.get(k,0)+gap
    if k=='alloc': allocs+=1; alloc_t+=gap
    if gap>thr: print('%8.1f %7.1f %-8s %s %d'%(t-ev[s0][0],gap,k,n[:70],b))
print('window us %.0f'%(ev[e][0]-ev[s0][0]), {k:round(v) for k,v in tot.items()}, 'allocs',allocs,'alloc gaps us',round(alloc_t), 'events', e-s0)
