#!/bin/bash
# device run 1: fenced per-kernel profile of ParILUT / ParICT steps (HEAD c3db89a, Kokkos Tools library ktime);
# steps old (HEAD) / new (entry kernel's vector dot over the exact stretches, lanes on the shorter) alternating;
# lanes study; CUDA unit tests of new; the time-to-solution headline (new)
R=$PWD
cd .gpu/w11 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=$OUT/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
for r in a b; do for v in old new; do
  B=./perf_ilut; [ $v = old ] && B=./perf_ilut_old
  timeout 60 $B --benchmark_filter='^par_i(lu|c)t_step/(L2D|L3D|bcsstk16|bodyy4|fv1)/exact/' --benchmark_out=$O/step_${v}_$r.json --benchmark_out_format=json > $O/step_${v}_$r.txt 2>&1
  ts "step $v $r rc $?"
done; done
for v in old new; do
  B=./perf_ilut; [ $v = old ] && B=./perf_ilut_old
  timeout 45 $B --benchmark_filter='^par_i(lu|c)t_sweep/(bcsstk16|bodyy4|fv1)/lanes' --benchmark_out=$O/lanes_$v.json --benchmark_out_format=json > $O/lanes_$v.txt 2>&1
  ts "lanes $v rc $?"
done
timeout 90 ./unit_cuda --gtest_filter='*ilut*:*ict*:*select*' > $O/unit.txt 2>&1
ts "unit rc $?"
timeout 120 ./tts --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
  --benchmark_out=$O/tts_h.json --benchmark_out_format=json > $O/tts_h.txt 2>&1
ts "tts rc $?"
cd $OUT && tar czf r.tgz r && rm -rf r
