#!/bin/bash
# Jacobi sweeps a thread per row on GPUs by the rule jacobi_sweep_rows: the time-to-solution benchmark, new build against c8a4c70's binary
# (defaults and forced Jacobi triangular solves), alternated twice; then the headline methods once
cd .gpu; tar xJf t7.tar.xz; cd t7
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/v; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
F='time_to_solution/[^/]*/(none|diagonal|par_ic|par_ic_jacobi|par_ic_jacobi1|par_ic_jacobi2|par_ilu|par_ilu_jacobi)/'
for k in 1 2; do
  for v in new old; do
    B=./AsyncSparse_Perf_time_to_solution; [ $v = old ] && B=./tts_base_c8a4c70
    timeout 110 $B --benchmark_filter="$F" --benchmark_out=$R/t_${v}_$k.json --benchmark_out_format=json > $R/t_${v}_$k.txt 2>&1; ts "t $v $k rc $?"
  done
done
timeout 100 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
  --benchmark_out=$R/tts_h.json --benchmark_out_format=json > $R/tts_h.txt 2>&1; ts "tts rc $?"
cd $OUT && tar czf v.tar.gz v && rm -rf v
