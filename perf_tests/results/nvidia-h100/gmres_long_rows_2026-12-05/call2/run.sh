#!/bin/bash
# watt_2's ParILU solve times with the GPU's clocks sampled every 50 ms (the benchmark's bimodal spread), new build and
# 56eaf2a alternated twice; then the headline benchmark once more
cd .gpu; tar xJf t1.tar.xz; cd t1
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/c; mkdir -p $R; nvidia-smi -q -d CLOCK,PERFORMANCE > $R/nvidia-smi-q.txt 2>&1
ts() { echo "$1 $(date +%T.%N)" >> $R/times.txt; }
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu,clocks_event_reasons.active --format=csv -lms 50 > $R/clocks.csv 2>&1 &
SMI=$!
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
for k in 1 2; do
  for v in new old; do
    B=./AsyncSparse_Perf_time_to_solution; [ $v = old ] && B=./tts_base_56eaf2a
    ts "w $v $k start"
    timeout 60 $B --benchmark_filter='time_to_solution/watt_2/(none|par_ilu)/' --benchmark_repetitions=3 --benchmark_out=$R/w_${v}_$k.json --benchmark_out_format=json > $R/w_${v}_$k.txt 2>&1; ts "w $v $k rc $?"
  done
done
kill $SMI
unset ASYNCSPARSE_TTS_PROBLEMS
timeout 250 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
  --benchmark_out=$R/tts_2.json --benchmark_out_format=json > $R/tts_2.txt 2>&1; ts "tts rc $?"
cd $OUT && tar czf c.tar.gz c && rm -rf c
