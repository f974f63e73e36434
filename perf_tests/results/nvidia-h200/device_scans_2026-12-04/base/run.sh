#!/bin/bash
# d74508c (d23): CUDA unit tests; ParILUT / ParICT steps; time to solution of the defaults
cd .gpu; tar xzf d09.tar.gz; tar xzf d23.tar.gz
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
(cd d23 && timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $?" >> $R/times.txt
for k in 1 2; do
  echo "== steps $k $(date +%T)" >> $R/times.txt
  timeout 90 ./d23/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_$k.json --benchmark_out_format=json > $R/steps_$k.txt 2>&1
  echo "rc $? $(date +%T)" >> $R/times.txt
done
echo "== tl L2D $(date +%T)" >> $R/times.txt
KTL_FENCE=1 KOKKOS_PROFILE_LIBRARY=$PWD/d23/ktimeline.so KTL_REGION=AsyncSparse::par_ilut_step KTL_INSTANCE=4 KTL_OUT=$R/tl_L2D.txt \
  timeout 60 ./d23/AsyncSparse_Perf_par_ilut --benchmark_filter="^par_ilut_step/L2D/exact/" --benchmark_min_time=0.05 > $R/tl_L2D.log 2>&1
echo "rc $?" >> $R/times.txt
echo "== tts $(date +%T)" >> $R/times.txt
timeout 150 ./d23/AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' --benchmark_out=$R/tts.json --benchmark_out_format=json > $R/tts.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
