#!/bin/bash
# f15: CUDA unit tests of e646b61; bcsstk15's default ParIC with the breakdown tail (benchmark and driver of d137d8e)
# in ten benchmark processes and 20 driver runs
cd .gpu; tar xJf f15.tar.xz; cd f15
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
timeout 60 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; echo "rc $? $(date +%T)" >> $R/times.txt
echo "== bcsstk15 $(date +%T)" >> $R/times.txt
for k in $(seq 1 10); do
  ASYNCSPARSE_TTS_PROBLEMS=bcsstk15 timeout 10 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/bcsstk15/par_ic/' >> $R/bcsstk15.txt 2>&1
done
for k in $(seq 1 20); do
  echo "=== run $k" >> $R/bcsstk15_default.log
  timeout 10 ./asyncsparse solve ../rcm/bcsstk15.mtx.gz --prec par_ic --max-iters 10000 --no-progress >> $R/bcsstk15_default.log 2>&1
  echo "rc $?" >> $R/bcsstk15_default.log
done
echo "rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
