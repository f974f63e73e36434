#!/bin/bash
# transposes by CUB's radix sort (d25) against the device scans alone (d24): CUDA unit tests; steps alternated
# twice; fenced timeline of one ParILUT step on L2D
cd .gpu; tar xzf d09.tar.gz; tar xzf d24.tar.gz; tar xzf d25.tar.gz
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
(cd d25 && timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $?" >> $R/times.txt
for k in 1 2; do
  for d in d24 d25; do
    echo "== steps $d $k $(date +%T)" >> $R/times.txt
    timeout 90 ./$d/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_${d}_$k.json --benchmark_out_format=json > $R/steps_${d}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
echo "== tl L2D $(date +%T)" >> $R/times.txt
KTL_FENCE=1 KOKKOS_PROFILE_LIBRARY=$PWD/d25/ktimeline.so KTL_REGION=AsyncSparse::par_ilut_step KTL_INSTANCE=4 KTL_OUT=$R/tl_L2D.txt \
  timeout 60 ./d25/AsyncSparse_Perf_par_ilut --benchmark_filter="^par_ilut_step/L2D/exact/" --benchmark_min_time=0.05 > $R/tl_L2D.log 2>&1
echo "rc $?" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
