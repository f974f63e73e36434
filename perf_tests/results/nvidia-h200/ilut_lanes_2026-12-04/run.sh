#!/bin/bash
# lanes per entry of the ParILUT sweeps on L3D / bcsstk16 / L2D (driver at eafd654: 3 steps, phase times per step)
cd .gpu; tar xzf d09.tar.gz; mkdir -p d14; cp asyncsparse d14/
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat
R=$OUT/r; mkdir -p $R
for m in gen:lap3d27:64 bcsstk16 gen:lap2d:1024; do
  for v in -1 1 2 4 8 16; do
    echo "== $m $v $(date +%T)" >> $R/times.txt
    f=$(echo $m | tr ':' '_')
    timeout 60 ./d14/asyncsparse ilut $m --steps 4 --all-steps --no-baselines --vector-length $v --json $R/ilut_${f}_v$v.json > $R/ilut_${f}_v$v.txt 2>&1
    echo "rc $?" >> $R/times.txt
  done
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
