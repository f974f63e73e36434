#!/bin/bash
# CUDA unit tests (all matrices); host timelines of one ParILUT step; one-time numeric phase on 2D / mid-size 3D
cd .gpu; tar xzf d06.tar.gz; cd d06
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
echo "== unit $(date +%T)" >> $R/times.txt
timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; echo "rc $?" >> $R/times.txt
for m in fv1 bcsstk16 L2D; do
  for f in nofence fence; do
    echo "== tl $m $f $(date +%T)" >> $R/times.txt
    if [ $f = fence ]; then export KTL_FENCE=1; else unset KTL_FENCE; fi
    KOKKOS_PROFILE_LIBRARY=$PWD/ktimeline.so KTL_REGION=AsyncSparse::par_ilut_step KTL_INSTANCE=6 KTL_OUT=$R/tl_${m}_$f.txt \
      timeout 60 ./AsyncSparse_Perf_par_ilut --benchmark_filter="^par_ilut_step/$m/exact/" --benchmark_min_time=0.05 > $R/tl_${m}_$f.log 2>&1
    echo "rc $?" >> $R/times.txt
  done
done
unset KTL_FENCE
export ASYNCSPARSE_PAR_ILU_PROBLEMS="gen:lap2d:400;gen:lap2d:700;gen:convdiff2d:512:1;gen:lap3d27:40;gen:lap3d27:48;gen:lap3d7:56"
F='BM_par_i(c|lu)_factorization(_row_team|_list)?/|BM_par_i(c|lu)_sweep(_row_team|_list)?/|BM_baseline_spmv/'
for k in 1 2; do
  echo "== fact$k $(date +%T)" >> $R/times.txt
  timeout 120 ./AsyncSparse_Perf_par_ilu --benchmark_filter="$F" --benchmark_out=$R/fact$k.json --benchmark_out_format=json > $R/fact$k.txt 2>&1
  echo "rc $?" >> $R/times.txt
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
