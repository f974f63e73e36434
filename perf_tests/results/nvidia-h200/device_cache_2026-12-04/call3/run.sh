#!/bin/bash
# device cache with 256 MiB of free arrays per View type (e03): CUDA unit tests; time to solution with the cache off
# / on alternated twice
cd .gpu; tar xzf e03.tar.gz; cd e03
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
timeout 220 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; echo "rc $? $(date +%T)" >> $R/times.txt
F='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for k in 1 2; do
  for c in 0 1; do
    echo "== tts cache=$c $k $(date +%T)" >> $R/times.txt
    ASYNCSPARSE_DEVICE_CACHE=$c timeout 100 ./AsyncSparse_Perf_time_to_solution --benchmark_filter="$F" --benchmark_out=$R/tts_c${c}_$k.json --benchmark_out_format=json > $R/tts_c${c}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
