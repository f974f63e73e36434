#!/bin/bash
# final build (e05): CUDA unit tests; ParILUT / ParICT steps of e02 (two reductions for the longest row) and e05 (one)
# alternated twice; time to solution of e05
cd .gpu; tar xzf e02s.tar.gz; tar xzf e05.tar.gz
export LD_LIBRARY_PATH=$PWD/e05/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/e05/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../unit_tests/data
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
timeout 220 ./e05/AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; echo "rc $? $(date +%T)" >> $R/times.txt
for k in 1 2; do
  for d in e02s e05; do
    echo "== steps $d $k $(date +%T)" >> $R/times.txt
    timeout 60 ./$d/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_${d}_$k.json --benchmark_out_format=json > $R/steps_${d}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
echo "== tts $(date +%T)" >> $R/times.txt
timeout 100 ./e05/AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/' --benchmark_out=$R/tts.json --benchmark_out_format=json > $R/tts.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
