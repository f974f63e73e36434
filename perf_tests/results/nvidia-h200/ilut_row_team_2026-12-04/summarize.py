import json,glob,os,sys
rows={}
for f in sorted(glob.glob(sys.argv[1]+'/*.json')):
    n=os.path.basename(f)[:-5]
    try: d=json.load(open(f))
    except Exception as e: print(n,'bad',e); continue
    st=d['steps']
    t=[s['total_seconds']*1e3 for s in st[2:]]
    sw=[s['sweep_seconds']*1e3 for s in st[2:]]
    ca=[s['candidates_seconds']*1e3 for s in st[2:]]
    it=st[-1]['solve']['iterations']
    rows[n]=(sum(t)/len(t),sum(sw)/len(sw),sum(ca)/len(ca),it,st[-1]['residual'])
for n,v in rows.items(): print(f"{n:40s} step {v[0]:7.2f} sweep {v[1]:7.2f} cand {v[2]:7.2f} its {v[3]:5d} res {v[4]:.4e}")
