#!/bin/bash
# part 1: the row-team kernel's staged-index loads from shared memory (new) against 22432c5's code (cur), alternated
cd .gpu; rm -rf q3; tar xJf q7m.tar.xz; cd q3; (cd mat && xz -d *.xz && gzip -1 *.mtx)
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_PAR_ILU_PROBLEMS='L3D;bcsstk16;gen:lap3d7:64;gen:lap3d27:40'
R=$OUT/g; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
F='^BM_par_(ic|ilu)_(sweep|sweep_row_team|5sweeps_row_team|factorization)/|^BM_baseline_spmv/'
for r in 1 2; do for v in new cur; do
  timeout 100 ./perf_$v --benchmark_filter="$F" --benchmark_out=$R/${v}_$r.json --benchmark_out_format=json > $R/${v}_$r.txt 2>&1; ts "$v $r rc $?"
done; done
cd $OUT && tar czf g.tar.gz g && rm -rf g
