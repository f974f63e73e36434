#!/bin/bash
# row-team sweeps of ParILUT / ParICT: CUDA unit tests; steps (default rule against the entry kernel, same run);
# pattern-reusing phases per kernel on the grids; time to solution of the defaults
cd .gpu; tar xzf d09.tar.gz; tar xzf d20.tar.gz
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
(cd d20 && timeout 170 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $?" >> $R/times.txt
echo "== steps $(date +%T)" >> $R/times.txt
timeout 150 ./d20/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/|^par_ic?l?u?t_step/L[23]D/exact_(entry|row_team)_sweeps/' --benchmark_min_time=0.2 --benchmark_out=$R/steps.json --benchmark_out_format=json > $R/steps.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
echo "== reuse $(date +%T)" >> $R/times.txt
timeout 100 ./d20/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_reuse/L[23]D/' --benchmark_out=$R/reuse.json --benchmark_out_format=json > $R/reuse.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
echo "== tts $(date +%T)" >> $R/times.txt
timeout 150 ./d20/AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' --benchmark_out=$R/tts.json --benchmark_out_format=json > $R/tts.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
