#!/bin/bash
# kernel-level host timelines (KTL_FENCE: a fence after every kernel, so each kernel's end is its completion):
# the default ParIC's set-up + solve on L3D and fv1, one ParILUT step of bcsstk16 and fv1
cd .gpu; tar xzf g02.tar.gz; cd g02
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
for m in L3D fv1; do
  for f in 1 0; do
    if [ $f = 1 ]; then export KTL_FENCE=1; else unset KTL_FENCE; fi
    ASYNCSPARSE_TTS_PROBLEMS=$m KOKKOS_PROFILE_LIBRARY=$PWD/ktimeline.so KTL_REGION=AsyncSparse::ParIc::initialize KTL_INSTANCE=3 KTL_OUT=$R/tl_${m}_f$f.txt \
      timeout 60 ./AsyncSparse_Perf_time_to_solution --benchmark_filter="time_to_solution/$m/par_ic/" > $R/tl_${m}_f$f.log 2>&1
    echo "tl $m $f rc $? $(date +%T)" >> $R/times.txt
  done
done
for m in bcsstk16 fv1; do
  for f in 1 0; do
    if [ $f = 1 ]; then export KTL_FENCE=1; else unset KTL_FENCE; fi
    KOKKOS_PROFILE_LIBRARY=$PWD/ktimeline.so KTL_REGION=AsyncSparse::par_ilut_step KTL_INSTANCE=5 KTL_OUT=$R/tls_${m}_f$f.txt \
      timeout 60 ./AsyncSparse_Perf_par_ilut --benchmark_filter="^par_ilut_step/$m/exact/" --benchmark_min_time=0.05 > $R/tls_${m}_f$f.log 2>&1
    echo "tls $m $f rc $? $(date +%T)" >> $R/times.txt
  done
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
