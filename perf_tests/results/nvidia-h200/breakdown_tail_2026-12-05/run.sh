#!/bin/bash
# The build of e1459ef (f12): CUDA unit tests; the time to solution of the defaults and baselines, twice;
# bcsstk15's default ParIC in ten benchmark processes; then the driver's PCG with ParIC on bcsstk15 (RCM order, as
# the benchmark uses it) with the default, more sweeps, a larger shift, the deterministic mode, 20 processes each;
# bcsstk13 and bcsstk18 with the default, 10 each
cd .gpu; tar xJf f12.tar.xz; cd f12
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; echo "rc $? $(date +%T)" >> $R/times.txt
for k in 1 2; do
  echo "== tts $k $(date +%T)" >> $R/times.txt
  timeout 150 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' --benchmark_out=$R/tts_$k.json --benchmark_out_format=json > $R/tts_$k.txt 2>&1
  echo "rc $? $(date +%T)" >> $R/times.txt
done
echo "== bcsstk15 $(date +%T)" >> $R/times.txt
for k in $(seq 1 10); do
  ASYNCSPARSE_TTS_PROBLEMS=bcsstk15 timeout 30 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/bcsstk15/par_ic/' >> $R/bcsstk15.txt 2>&1
done
echo "rc $? $(date +%T)" >> $R/times.txt
one() {  # matrix, runs, params
  local f=$R/$1_$(echo "${3:-default}" | tr ',=' '_-').log
  for k in $(seq 1 $2); do
    echo "=== run $k" >> $f
    timeout 30 ./asyncsparse solve ../rcm/$1.mtx.gz --prec par_ic --max-iters 10000 --no-progress ${3:+--param $3} >> $f 2>&1
    echo "rc $?" >> $f
  done
}
echo "== start $(date +%T)" >> $R/times.txt
for p in "" sweeps=10 sweeps=20 diagonal_shift=0.99 diagonal_shift=0.99,sweeps=10 mode=deterministic; do
  one bcsstk15 20 "$p"; echo "bcsstk15 $p $(date +%T)" >> $R/times.txt
done
for m in bcsstk13 bcsstk18; do one $m 10 ""; echo "$m $(date +%T)" >> $R/times.txt; done
cd $OUT && tar czf r.tar.gz r && rm -rf r
