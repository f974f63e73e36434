#!/bin/bash
# row-team sweep kernel: the other operand walked from its end down to the staged row's first column (variants)
cd .gpu/q1
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_PERF_SCALE=paper ASYNCSPARSE_PAR_ILU_PROBLEMS='L3D;gen:lap3d7:64;gen:lap3d27:40'
R=$OUT/a; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
F='^BM_par_(ic|ilu)_(sweep|5sweeps_row_team|factorization)/|^BM_baseline_spmv/'
for r in 1 2; do
  timeout 80 ./perf_head --benchmark_filter="$F" --benchmark_out=$R/head_$r.json --benchmark_out_format=json > $R/head_$r.txt 2>&1; ts "head $r rc $?"
  for v in 0 1 2 3; do
    ASYNCSPARSE_X_ROWTEAM=$v timeout 80 ./perf_x --benchmark_filter="$F" --benchmark_out=$R/x${v}_$r.json --benchmark_out_format=json > $R/x${v}_$r.txt 2>&1; ts "x$v $r rc $?"
  done
done
cd $OUT && tar czf a.tar.gz a && rm -rf a
