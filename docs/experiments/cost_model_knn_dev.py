#!/usr/bin/env python3
"""cost_model_knn_dev.py - does a nearest-neighbour correction of the cost model's residuals pick better? Two-fold
cross-validation (as scripts/fit_cost_model.py's) over the four H200 candidate samples, the linear model alone (K = 0)
and plus the inverse-distance-weighted residual of each version over its K nearest training shapes in (ln N, ln Cin,
ln Cout, ln Hout, ln Wout, pad / 2, (W % 4 = 0) / 2). Run from the repository root; prints per K the within-5%, shapes,
over-1.2x and worst of each precision. Not kept (docs/design.md, "Kernel selection")."""
import sys, math, random, collections
sys.path.insert(0,'scripts')
import fit_cost_model as F
import numpy as np
D='results/h200/history/dev/'
files=[D+'selection_candidates_seed1_dev.csv.gz',D+'selection_candidates_seed2_dev.csv.gz',D+'selection_candidates_seed20261205_dev.csv.gz','results/h200/selection_candidates.csv']
groups, feats = F.read(files, 132)
def coords(key):
    n,cin,cout,h,w,pad,_=key
    hout,wout=h-2+2*pad,w-2+2*pad
    return np.array([math.log(n),math.log(cin),math.log(cout),math.log(hout),math.log(wout),0.5*pad,0.5*(w%4==0)])
def evaluate(K, scale=1.0):
    res={}
    for prec in ('fp32','tf32','3xtf32'):
        keys=sorted(k for k in groups if k[6]==prec)
        random.Random(0).shuffle(keys)
        half=len(keys)//2
        tot=[0,0,0,0.0]
        for tr,te in ((keys[:half],keys[half:]),(keys[half:],keys[:half])):
            model=F.fit(np,groups,feats,tr,1.0)
            # residuals per version over training shapes
            resid=collections.defaultdict(list)
            for k in tr:
                for kern,v,ms in groups[k]:
                    if ms and (kern,v) in model:
                        resid[(kern,v)].append((coords(k), math.log(ms)-float(np.array(feats[k])@model[(kern,v)])))
            arr={kv:(np.array([c for c,_ in l]), np.array([r for _,r in l])) for kv,l in resid.items()}
            for k in te:
                best=min((ms for _,_,ms in groups[k] if ms), default=None)
                if best is None: continue
                c=coords(k); cands=[]
                for kern,v,ms in groups[k]:
                    if (kern,v) not in model: continue
                    p=float(np.array(feats[k])@model[(kern,v)])
                    if K>0 and (kern,v) in arr:
                        X,R=arr[(kern,v)]
                        d=np.sqrt(((X-c)**2).sum(1))
                        idx=np.argsort(d)[:K]
                        wts=1.0/(d[idx]+0.3)
                        p+=scale*float((wts*R[idx]).sum()/wts.sum())
                    cands.append((p,ms))
                if not cands: continue
                ms=min(cands)[1]
                if not ms: continue
                r=ms/best
                tot[0]+=1; tot[1]+= r<=1.05; tot[2]+= r>1.2; tot[3]=max(tot[3],r)
        res[prec]=tot
    return res
for K,s in ((0,1),(5,1),(10,1),(20,1),(10,0.5)):
    r=evaluate(K,s)
    print(K,s, {p:(t[1],t[0],t[2],round(t[3],2)) for p,t in r.items()})
