#!/bin/bash
cd .gpu; tar xJf o01.tar.xz; cd o01
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/r; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
tts() { timeout 150 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
    --benchmark_out=$R/tts_$1.json --benchmark_out_format=json > $R/tts_$1.txt 2>&1; ts "tts$1 rc $?"; }
tts 1
for k in $(seq 1 10); do
  timeout 40 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/bcsstk15/(diagonal|par_ic)/' \
    --benchmark_out=$R/b15_$k.json --benchmark_out_format=json > /dev/null 2>&1
done; ts b15tts
for k in $(seq 1 20); do
  timeout 20 ./asyncsparse solve ../rcm/bcsstk15.mtx.gz --prec par_ic --no-progress --json $R/b15_driver_$k.json 2>&1 | grep -a "ParIc\|error" >> $R/b15_driver.txt
done; ts b15drv
for m in ../rcm/bcsstk13.mtx.gz ../rcm/bcsstk15.mtx.gz ../rcm/bcsstk18.mtx.gz mat/nos1.mtx.gz mat/nos2.mtx.gz \
  mat/bcsstk14.mtx.gz gen:lap2d:1024 gen:lap3d27:64; do
  for o in auto ordered auto ordered; do
    timeout 60 ./asyncsparse solve $m --prec par_ic --no-progress --param sweep_order=$o --json $R/o_$(basename $m)_$o.json 2>&1 | grep -a "ParIc\|error" | sed "s|^|$o |" >> $R/ordered_cost.txt
  done; ts "cost $m"
done
tts 2
cd $OUT && tar czf r.tar.gz r && rm -rf r
