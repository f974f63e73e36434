#!/bin/bash
# f1ce287: CUDA unit tests; time to solution on the default problem set (the defaults against their baselines)
cd .gpu; tar xzf d09.tar.gz; tar xzf d17.tar.gz
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
(cd d17 && timeout 150 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $?" >> $R/times.txt
echo "== tts $(date +%T)" >> $R/times.txt
timeout 300 ./d17/AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' --benchmark_out=$R/tts.json --benchmark_out_format=json > $R/tts.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
echo "== steps $(date +%T)" >> $R/times.txt
timeout 60 ./d17/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps.json --benchmark_out_format=json > $R/steps.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
