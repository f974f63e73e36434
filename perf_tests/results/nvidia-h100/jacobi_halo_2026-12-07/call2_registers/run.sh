#!/bin/bash
# device run: fused Jacobi sweeps, second form (a thread keeps its rows across the sweeps, its first row's entries in
# registers, x_0 in team memory first): shape A (blocks of 256 rows, 512 threads) and B (128, 256) against 6e1c142
# (old) — CUDA unit tests (A), forced fused / unfused pairs in one process each, alternating, and the headline
R=$PWD
cd .gpu/w25 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=$OUT/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
timeout 120 ./unit_cuda > $O/unit.txt 2>&1
ts "unit rc $?"
P='time_to_solution/(fv1|fv2|fv3|bodyy4|bodyy5|bodyy6|nos7|ted_b|nos3|nos5|nos6|watt_2|bcsstk14|bcsstk18)/(par_ic_fused|par_ic_unfused|par_ilu_fused|par_ilu_unfused)/'
for r in a b c; do for v in A B; do
  timeout 90 ./tts_$v --benchmark_filter="$P" --benchmark_out=$O/tts_p_${v}_$r.json --benchmark_out_format=json > $O/tts_p_${v}_$r.txt 2>&1
  ts "pairs $v $r rc $?"
done; done
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for v in A old; do
  timeout 130 ./tts_$v --benchmark_filter="$H" --benchmark_out=$O/tts_h_$v.json --benchmark_out_format=json > $O/tts_h_$v.txt 2>&1
  ts "headline $v rc $?"
done
cd $OUT && tar czf r.tgz r && rm -rf r
