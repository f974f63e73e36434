#!/bin/bash
# long rows on a thread's lanes in the GMRES team cycle: CUDA unit tests; watt_2 and the small convection-diffusion
# grids, new build against 56eaf2a's benchmark binary, alternated 3 times; the driver; one headline run
cd .gpu; tar xJf t1.tar.xz; cd t1
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/r; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:48:10;gen:convdiff2d:64:10'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for k in 1 2 3; do
  for v in new old; do
    B=./AsyncSparse_Perf_time_to_solution; [ $v = old ] && B=./tts_base_56eaf2a
    timeout 60 $B --benchmark_filter="$F" --benchmark_out=$R/g_${v}_$k.json --benchmark_out_format=json > $R/g_${v}_$k.txt 2>&1; ts "g $v $k rc $?"
  done
done
unset ASYNCSPARSE_TTS_PROBLEMS
# (driver left out: carry size)
timeout 250 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
  --benchmark_out=$R/tts_1.json --benchmark_out_format=json > $R/tts_1.txt 2>&1; ts "tts rc $?"
cd $OUT && tar czf r.tar.gz r && rm -rf r
