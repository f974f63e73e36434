#!/bin/bash
# device run: fused Jacobi sweeps by blocks with halos in team memory (new) against 6e1c142 (old: the library code of
# 2bee9a0) — CUDA unit tests (new), the time-to-solution headline of both builds twice (alternating), alternations on
# the small problems, the forced variants and the Jacobi modes on large grids
R=$PWD
cd .gpu/w24 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=$OUT/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
timeout 120 ./unit_cuda > $O/unit.txt 2>&1
ts "unit rc $?"
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for r in a b; do for v in new old; do
  timeout 130 ./tts_$v --benchmark_filter="$H" --benchmark_out=$O/tts_h_${v}_$r.json --benchmark_out_format=json > $O/tts_h_${v}_$r.txt 2>&1
  ts "headline $v $r rc $?"
done; done
S='time_to_solution/(fv1|fv2|fv3|bodyy4|bodyy5|bodyy6|nos7|ted_b|nos3|nos5|nos6|bcsstk16|watt_2)/(diagonal|par_ic|par_ilu)/'
for r in a b c; do for v in old new; do
  timeout 60 ./tts_$v --benchmark_filter="$S" --benchmark_out=$O/tts_s_${v}_$r.json --benchmark_out_format=json > $O/tts_s_${v}_$r.txt 2>&1
  ts "small $v $r rc $?"
done; done
timeout 150 ./tts_new --benchmark_filter='time_to_solution/[^/]*/(par_ic_fused|par_ic_unfused|par_ilu_fused|par_ilu_unfused)/' \
  --benchmark_out=$O/tts_v.json --benchmark_out_format=json > $O/tts_v.txt 2>&1
ts "variants rc $?"
timeout 90 ./tts_new --benchmark_filter='time_to_solution/(L2D|L3D|fv1|bodyy4|ted_b|bcsstk16|nos3)/(par_ic_jacobi|par_ic_jacobi_fused|par_ic_jacobi2|par_ic_jacobi2_fused)/' \
  --benchmark_out=$O/tts_j.json --benchmark_out_format=json > $O/tts_j.txt 2>&1
ts "jacobi rc $?"
cd $OUT && tar czf r.tgz r && rm -rf r
