#!/bin/bash
# CUDA unit tests; timelines of a timed ParILUT step (4th instance); the row-team rule: one-time numeric phase
# (default / list / row_team) and time to solution of the default ParIC against the list kernel on grids
cd .gpu; tar xzf d09.tar.gz; cd d09
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
timeout 120 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; echo "rc $?" >> $R/times.txt
for m in fv1 bcsstk16 L2D; do
  for f in nofence fence; do
    echo "== tl $m $f $(date +%T)" >> $R/times.txt
    if [ $f = fence ]; then export KTL_FENCE=1; else unset KTL_FENCE; fi
    KOKKOS_PROFILE_LIBRARY=$PWD/ktimeline.so KTL_REGION=AsyncSparse::par_ilut_step KTL_INSTANCE=4 KTL_OUT=$R/tl_${m}_$f.txt \
      timeout 60 ./AsyncSparse_Perf_par_ilut --benchmark_filter="^par_ilut_step/$m/exact/" --benchmark_min_time=0.05 > $R/tl_${m}_$f.log 2>&1
    echo "rc $?" >> $R/times.txt
  done
done
unset KTL_FENCE
export ASYNCSPARSE_TTS_PROBLEMS="L3D;gen:lap3d27:32;gen:lap3d27:48;gen:lap3d27:80;gen:lap3d7:48;gen:lap3d7:64;gen:lap3d7:96;gen:lap2d:400;gen:lap2d:700"
for k in 1 2; do
  echo "== tts$k $(date +%T)" >> $R/times.txt
  timeout 100 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/.*/(diagonal|par_ic|par_ic_list)$' --benchmark_out=$R/tts$k.json --benchmark_out_format=json > $R/tts$k.txt 2>&1
  echo "rc $?" >> $R/times.txt
done
for m in gen:lap3d27:64 gen:lap3d7:64 gen:lap3d27:48; do
  for k in 1 2 3; do
    for v in default list; do
      echo "== ilu $m $v $k $(date +%T)" >> $R/times.txt
      P=""; [ $v = list ] && P="--param sweep_kernel=list"
      timeout 30 ./asyncsparse solve $m --prec par_ilu --solver gmres $P --json $R/ilu_${m//:/_}_${v}_$k.json > $R/ilu_${m//:/_}_${v}_$k.txt 2>&1
      echo "rc $?" >> $R/times.txt
    done
  done
done
export ASYNCSPARSE_PAR_ILU_PROBLEMS="L3D;gen:lap3d27:32;gen:lap3d27:40;gen:lap3d7:48;gen:lap3d7:64;gen:lap2d:400;bcsstk16"
F='BM_par_i(c|lu)_factorization(_row_team|_list)?/|BM_baseline_spmv/'
for k in 1 2; do
  echo "== fact$k $(date +%T)" >> $R/times.txt
  timeout 100 ./AsyncSparse_Perf_par_ilu --benchmark_filter="$F" --benchmark_out=$R/fact$k.json --benchmark_out_format=json > $R/fact$k.txt 2>&1
  echo "rc $?" >> $R/times.txt
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
