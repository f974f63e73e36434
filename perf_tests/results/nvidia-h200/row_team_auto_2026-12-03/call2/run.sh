#!/bin/bash
# d10: sample splitters sorted in one team (CUDA unit tests; ParILUT / ParICT steps against d09's host sort, alternated);
# d09: the row-team rule's time to solution (two runs), cold driver solves, one-time numeric phase
cd .gpu; tar xzf d09.tar.gz; tar xzf d10.tar.gz
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
(cd d10 && timeout 120 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $?" >> $R/times.txt
for k in 1 2; do
  for b in d09 d10; do
    echo "== steps $b $k $(date +%T)" >> $R/times.txt
    timeout 100 ./$b/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_${b}_$k.json --benchmark_out_format=json > $R/steps_${b}_$k.txt 2>&1
    echo "rc $?" >> $R/times.txt
  done
done
for m in fv1 bcsstk16; do
  echo "== tl $m $(date +%T)" >> $R/times.txt
  KOKKOS_PROFILE_LIBRARY=$PWD/d09/ktimeline.so KTL_REGION=AsyncSparse::par_ilut_step KTL_INSTANCE=4 KTL_OUT=$R/tl_${m}_d10.txt \
    timeout 60 ./d10/AsyncSparse_Perf_par_ilut --benchmark_filter="^par_ilut_step/$m/exact/" --benchmark_min_time=0.05 > $R/tl_${m}_d10.log 2>&1
  echo "rc $?" >> $R/times.txt
done
cd d09
export ASYNCSPARSE_TTS_PROBLEMS="L3D;gen:lap3d27:32;gen:lap3d27:48;gen:lap3d27:80;gen:lap3d7:48;gen:lap3d7:64;gen:lap3d7:96;gen:lap2d:400;gen:lap2d:700"
for k in 1 2; do
  echo "== tts$k $(date +%T)" >> $R/times.txt
  timeout 150 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/.*/(diagonal|par_ic|par_ic_list)/' --benchmark_out=$R/tts$k.json --benchmark_out_format=json > $R/tts$k.txt 2>&1
  echo "rc $?" >> $R/times.txt
done
for m in gen:lap3d27:64 gen:lap3d7:64 gen:lap2d:700 gen:lap3d27:80; do
  for k in 1 2 3; do
    for v in default list; do
      echo "== ic $m $v $k $(date +%T)" >> $R/times.txt
      P=""; [ $v = list ] && P="--param sweep_kernel=list"
      timeout 30 ./asyncsparse solve $m --prec par_ic $P --json $R/ic_${m//:/_}_${v}_$k.json > $R/ic_${m//:/_}_${v}_$k.txt 2>&1
      echo "rc $?" >> $R/times.txt
    done
  done
done
export ASYNCSPARSE_PAR_ILU_PROBLEMS="L3D;gen:lap3d27:80;gen:lap3d7:64;gen:lap2d:700"
F='BM_par_i(c|lu)_factorization(_row_team|_list)?/|BM_baseline_spmv/'
echo "== fact $(date +%T)" >> $R/times.txt
timeout 100 ./AsyncSparse_Perf_par_ilu --benchmark_filter="$F" --benchmark_out=$R/fact.json --benchmark_out_format=json > $R/fact.txt 2>&1
echo "rc $?" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
