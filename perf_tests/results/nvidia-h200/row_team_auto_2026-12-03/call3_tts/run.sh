#!/bin/bash
# time to solution on the default problem set (L2D, L3D, the shared matrices): the defaults against their baselines
cd .gpu; tar xzf d09.tar.gz; tar xzf d11.tar.gz
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== tts $(date +%T)" >> $R/times.txt
timeout 540 ./d11/AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' --benchmark_out=$R/tts.json --benchmark_out_format=json > $R/tts.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
