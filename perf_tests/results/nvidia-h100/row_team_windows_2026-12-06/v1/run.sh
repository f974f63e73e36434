#!/bin/bash
# row-team kernel: the other operand's row windows staged (indices) in team memory; factor = entries / (rows x longest row)
cd .gpu/w1; tar xJf q.tar.xz; cd q; (cd mat && xz -d *.xz && gzip -1 *.mtx)
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/w; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
export ASYNCSPARSE_PAR_ILU_PROBLEMS='L2D;L3D;bcsstk16;gen:lap3d7:64'
F='^BM_par_(ic|ilu)_(sweep|5sweeps|factorization|5sweeps_row_team|sweep_row_team)/|^BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/'
b() { timeout 90 ./perf_base --benchmark_filter="$F" --benchmark_out=$R/base_$1.json --benchmark_out_format=json > $R/base_$1.txt 2>&1; ts "base $1 rc $?"; }
b 1
for v in 0 3 5 8; do
  ASYNCSPARSE_ROW_TEAM_WINDOWS=$v timeout 90 ./perf_x --benchmark_filter="$F" --benchmark_out=$R/x${v}.json --benchmark_out_format=json > $R/x${v}.txt 2>&1; ts "x$v rc $?"
done
b 2
cd $OUT && tar czf w.tar.gz w && rm -rf w
