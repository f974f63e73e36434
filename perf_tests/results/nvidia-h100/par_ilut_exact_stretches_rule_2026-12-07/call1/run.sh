#!/bin/bash
# device run: ParILUT/ParICT steps old (HEAD) / new (rule C) alternating; lanes; fenced per-kernel profile of steps;
# CUDA unit tests (new); sweep / spmv and 5 sweeps vs cuSPARSE; time-to-solution headline
R=$PWD
cd .gpu/w12 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=$OUT/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
F='^par_i(lu|c)t_step/(L2D|L3D|bcsstk16|bcsstk18|bodyy4|fv1|cryg2500)/exact/'
for r in a b; do for v in old new; do
  B=./perf_ilut; [ $v = old ] && B=./perf_ilut_old
  timeout 60 $B --benchmark_filter="$F" --benchmark_out=$O/step_${v}_$r.json --benchmark_out_format=json > $O/step_${v}_$r.txt 2>&1
  ts "step $v $r rc $?"
done; done
timeout 40 ./perf_ilut --benchmark_filter='^par_i(lu|c)t_sweep/(bcsstk16|bodyy4|fv1)/lanes' --benchmark_out=$O/lanes_new.json --benchmark_out_format=json > $O/lanes_new.txt 2>&1
ts "lanes rc $?"
timeout 90 ./unit_cuda --gtest_filter='*ilut*:*ict*:*select*:*Ilut*:*Ict*' > $O/unit.txt 2>&1
ts "unit rc $?"
for m in bcsstk16 bodyy4 fv1; do
  KOKKOS_PROFILE_LIBRARY=$PWD/libktime.so KTIME_OUT=$O/ktime_$m.txt timeout 30 ./perf_ilut --benchmark_filter="^par_i(lu|c)t_step/$m/exact/" --benchmark_min_time=0.05 > $O/ktime_run_$m.txt 2>&1
  ts "ktime $m rc $?"
done
ASYNCSPARSE_PAR_ILU_PROBLEMS="L2D;L3D;bcsstk16" timeout 150 ./perf_ilu --benchmark_filter='^BM_(par_ic|par_ilu)_(sweep|5sweeps)/|^BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/' --benchmark_out=$O/sweeps.json --benchmark_out_format=json > $O/sweeps.txt 2>&1
ts "sweeps rc $?"
timeout 120 ./tts --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
  --benchmark_out=$O/tts_h.json --benchmark_out_format=json > $O/tts_h.txt 2>&1
ts "tts rc $?"
cd $OUT && tar czf r.tgz r && rm -rf r
