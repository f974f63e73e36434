#!/bin/bash
# d16 (ParILUT's threshold selection takes the counts around the threshold from SampleSelect): CUDA unit tests;
# ParILUT / ParICT steps of e88957e (prev) and this build (new), alternated twice
cd .gpu; tar xzf d09.tar.gz; tar xzf d16.tar.gz
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
(cd d16 && timeout 150 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $?" >> $R/times.txt
for k in 1 2 3; do
  for b in prev new; do
    B=./d16/AsyncSparse_Perf_par_ilut; [ $b = prev ] && B=./d16/Perf_par_ilut_e88957e
    echo "== steps $b $k $(date +%T)" >> $R/times.txt
    timeout 100 $B --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_${b}_$k.json --benchmark_out_format=json > $R/steps_${b}_$k.txt 2>&1
    echo "rc $?" >> $R/times.txt
  done
done
echo "== tl fv1 new $(date +%T)" >> $R/times.txt
KOKKOS_PROFILE_LIBRARY=$PWD/d16/ktimeline.so KTL_REGION=AsyncSparse::par_ilut_step KTL_INSTANCE=4 KTL_OUT=$R/tl_fv1_new.txt \
  timeout 60 ./d16/AsyncSparse_Perf_par_ilut --benchmark_filter="^par_ilut_step/fv1/exact/" --benchmark_min_time=0.05 > $R/tl_fv1_new.log 2>&1
echo "rc $?" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
