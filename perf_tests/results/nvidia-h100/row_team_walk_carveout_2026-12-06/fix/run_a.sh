#!/bin/bash
# row-team bound fix, part 1: par_ilu (f8f5e91 against the fix, alternated); leaves .gpu/q3 (matrices, libraries) for part 2
cd .gpu; tar xJf q4m.tar.xz; cd q3; (cd mat && xz -d *.xz && gzip -1 *.mtx)
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/c; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
export ASYNCSPARSE_PAR_ILU_PROBLEMS='L2D;L3D;bcsstk16'
F='^BM_par_(ic|ilu)_(sweep|5sweeps|factorization|5sweeps_row_team|sweep_row_team)/|^BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/'
for r in 1 2; do
  timeout 100 ./perf_new --benchmark_filter="$F" --benchmark_out=$R/new_$r.json --benchmark_out_format=json > $R/new_$r.txt 2>&1; ts "new $r rc $?"
  timeout 100 ./perf_head --benchmark_filter="$F" --benchmark_out=$R/head_$r.json --benchmark_out_format=json > $R/head_$r.txt 2>&1; ts "head $r rc $?"
done
cd $OUT && tar czf c.tar.gz c && rm -rf c
