#!/bin/bash
# d15 (fused launches: tasks, compaction, counts in the scans, status reset with the saved values): CUDA unit tests;
# ParILUT / ParICT steps of 3cb0a71 (old), 4073ee8 (mid) and this build (new), alternated twice; timelines of new
cd .gpu; tar xzf d09.tar.gz; tar xzf d15.tar.gz
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
(cd d15 && timeout 150 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $?" >> $R/times.txt
for k in 1 2; do
  for b in old mid new; do
    B=./d15/AsyncSparse_Perf_par_ilut; [ $b = old ] && B=./d15/Perf_par_ilut_3cb0a71; [ $b = mid ] && B=./d15/Perf_par_ilut_4073ee8
    echo "== steps $b $k $(date +%T)" >> $R/times.txt
    timeout 100 $B --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_${b}_$k.json --benchmark_out_format=json > $R/steps_${b}_$k.txt 2>&1
    echo "rc $?" >> $R/times.txt
  done
done
for m in fv1 bcsstk16; do
  echo "== tl $m new $(date +%T)" >> $R/times.txt
  KOKKOS_PROFILE_LIBRARY=$PWD/d15/ktimeline.so KTL_REGION=AsyncSparse::par_ilut_step KTL_INSTANCE=4 KTL_OUT=$R/tl_${m}_new.txt \
    timeout 60 ./d15/AsyncSparse_Perf_par_ilut --benchmark_filter="^par_ilut_step/$m/exact/" --benchmark_min_time=0.05 > $R/tl_${m}_new.log 2>&1
  echo "rc $?" >> $R/times.txt
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
