#!/bin/bash
# device cache (review mends) + ParILUT step mends: CUDA unit tests of e02; time to solution of e02 with the cache
# off / on alternated twice; ParILUT / ParICT steps of e01 (before the step mends) and e02 alternated twice; the
# driver's run record
cd .gpu; tar xzf e01s.tar.gz; tar xzf e02.tar.gz
export LD_LIBRARY_PATH=$PWD/e02/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/e02/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../unit_tests/data
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
timeout 220 ./e02/AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; echo "rc $? $(date +%T)" >> $R/times.txt
for k in 1 2; do
  for d in e01s e02; do
    echo "== steps $d $k $(date +%T)" >> $R/times.txt
    timeout 60 ./$d/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_${d}_$k.json --benchmark_out_format=json > $R/steps_${d}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
F='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for k in 1 2; do
  for c in 0 1; do
    echo "== tts cache=$c $k $(date +%T)" >> $R/times.txt
    ASYNCSPARSE_DEVICE_CACHE=$c timeout 100 ./e02/AsyncSparse_Perf_time_to_solution --benchmark_filter="$F" --benchmark_out=$R/tts_c${c}_$k.json --benchmark_out_format=json > $R/tts_c${c}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
