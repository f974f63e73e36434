#!/bin/bash
# solvers' start: ||b|| and the initial residual in one pass, residual copies without fences (e04) against e03:
# CUDA unit tests of e04; time to solution of e03 and e04 alternated twice
cd .gpu; tar xzf e03s.tar.gz; tar xzf e04.tar.gz
export LD_LIBRARY_PATH=$PWD/e04/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/e04/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../unit_tests/data
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
timeout 220 ./e04/AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; echo "rc $? $(date +%T)" >> $R/times.txt
F='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for k in 1 2; do
  for d in e03s e04; do
    echo "== tts $d $k $(date +%T)" >> $R/times.txt
    timeout 100 ./$d/AsyncSparse_Perf_time_to_solution --benchmark_filter="$F" --benchmark_out=$R/tts_${d}_$k.json --benchmark_out_format=json > $R/tts_${d}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
