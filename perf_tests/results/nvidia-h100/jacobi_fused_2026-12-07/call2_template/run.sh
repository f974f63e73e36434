#!/bin/bash
# device run: fused Jacobi sweeps (new) against e0e6bca (old: the same code as 2bee9a0) — CUDA unit tests (new),
# time-to-solution headline of both builds, alternations on the problems the rule changes, the forced variants
R=$PWD
cd .gpu/w21 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=$OUT/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
timeout 120 ./unit_cuda > $O/unit.txt 2>&1
ts "unit rc $?"
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for v in new old; do
  timeout 130 ./tts_$v --benchmark_filter="$H" --benchmark_out=$O/tts_h_$v.json --benchmark_out_format=json > $O/tts_h_$v.txt 2>&1
  ts "headline $v rc $?"
done
S='time_to_solution/(fv1|fv2|fv3|bodyy4|bodyy5|bodyy6|nos7|ted_b|trefethen_2000|nos3|nos5|bcsstk16)/(diagonal|par_ic)/'
for r in a b; do for v in old new; do
  timeout 60 ./tts_$v --benchmark_filter="$S" --benchmark_out=$O/tts_s_${v}_$r.json --benchmark_out_format=json > $O/tts_s_${v}_$r.txt 2>&1
  ts "small $v $r rc $?"
done; done
timeout 200 ./tts_new --benchmark_filter='time_to_solution/[^/]*/(diagonal|par_ic_fused|par_ic_unfused|par_ic_jacobi|par_ic_jacobi_fused|par_ic_jacobi2|par_ic_jacobi2_fused|par_ilu_fused|par_ilu_unfused)/' \
  --benchmark_out=$O/tts_v.json --benchmark_out_format=json > $O/tts_v.txt 2>&1
ts "variants rc $?"
cd $OUT && tar czf r.tgz r && rm -rf r
