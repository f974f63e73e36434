#!/bin/bash
# device run: ParILUT/ParICT steps of 629e832 (old), 0672b41 (head: exact stretches as a template parameter) and the
# working tree (new: the residual summed by the sweep's teams) alternating; CUDA unit tests (new); fenced per-kernel
# profile of fv1's steps (new); time-to-solution headline
R=$PWD
cd .gpu/w13 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=$OUT/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
F='^par_i(lu|c)t_step/(L2D|L3D|bcsstk16|bcsstk18|bodyy4|fv1|cryg2500)/exact/'
for r in a b; do for v in old head new; do
  B=./perf_ilut_$v
  timeout 60 $B --benchmark_filter="$F" --benchmark_out=$O/step_${v}_$r.json --benchmark_out_format=json > $O/step_${v}_$r.txt 2>&1
  ts "step $v $r rc $?"
done; done
timeout 100 ./unit_cuda --gtest_filter='*ilut*:*ict*:*select*:*Ilut*:*Ict*:*chunked_launch*' > $O/unit.txt 2>&1
ts "unit rc $?"
for m in fv1; do
  KOKKOS_PROFILE_LIBRARY=$PWD/libktime.so KTIME_OUT=$O/ktime_$m.txt timeout 30 ./perf_ilut_new --benchmark_filter="^par_i(lu|c)t_step/$m/exact/" --benchmark_min_time=0.05 > $O/ktime_run_$m.txt 2>&1
  ts "ktime $m rc $?"
done
timeout 120 ./tts --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
  --benchmark_out=$O/tts_h.json --benchmark_out_format=json > $O/tts_h.txt 2>&1
ts "tts rc $?"
cd $OUT && tar czf r.tgz r && rm -rf r
