#!/bin/bash
# shared-memory carveout of the team kernels (Kokkos 3.4 prefers shared memory for every team launch: 233 KB, L1 ~23 KB)
cd .gpu/q1; (cd mat && xz -d *.xz; gzip -1 *.mtx)
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper ASYNCSPARSE_PAR_ILU_PROBLEMS='L2D;L3D;bcsstk16;gen:lap3d7:64;gen:lap3d27:40'
R=$OUT/b; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
F='^BM_par_(ic|ilu)_(sweep|5sweeps|factorization|5sweeps_row_team)/|^BM_baseline_spmv/'
ASYNCSPARSE_X_CARVEOUT=1001 timeout 60 ./perf_x --benchmark_filter="$F" --benchmark_min_time=0.01 2>&1 | grep carveout | sort | uniq -c > $R/carveouts.txt; ts "print rc $?"
for r in 1 2; do
  timeout 80 ./perf_head --benchmark_filter="$F" --benchmark_out=$R/head_$r.json --benchmark_out_format=json > $R/head_$r.txt 2>&1; ts "head $r rc $?"
  for v in -1 1000 50 25; do
    ASYNCSPARSE_X_CARVEOUT=$v timeout 80 ./perf_x --benchmark_filter="$F" --benchmark_out=$R/x${v}_$r.json --benchmark_out_format=json > $R/x${v}_$r.txt 2>&1; ts "x$v $r rc $?"
  done
done
cd $OUT && tar czf b.tar.gz b && rm -rf b
