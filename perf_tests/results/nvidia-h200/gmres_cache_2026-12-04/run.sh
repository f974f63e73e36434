#!/bin/bash
# GMRES's work arrays from the device-array cache (new, branch rebased on 6695cd1) against 0290357 (old): CUDA unit
# tests of the new build; time to solution of the GMRES problems alternated three times; a host timeline of the
# default ParILU's set-up and GMRES solve on watt_2 (third timed run)
cd .gpu; tar xzf g07.tar.gz; tar xzf g05s.tar.gz; cp g05s/AsyncSparse_Perf_time_to_solution g07/tts_old
cd g07
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
timeout 220 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; echo "rc $? $(date +%T)" >> $R/times.txt
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:128:10;gen:convdiff2d:256:10;gen:convdiff2d:64:30'
for k in 1 2 3; do
  for b in old new; do
    B=./AsyncSparse_Perf_time_to_solution; [ $b = old ] && B=./tts_old
    echo "== tts $b $k $(date +%T)" >> $R/times.txt
    timeout 100 $B --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/' --benchmark_out=$R/tts_${b}_$k.json --benchmark_out_format=json > $R/tts_${b}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
for f in 1 0; do
  if [ $f = 1 ]; then export KTL_FENCE=1; else unset KTL_FENCE; fi
  ASYNCSPARSE_TTS_PROBLEMS=watt_2 KOKKOS_PROFILE_LIBRARY=$PWD/ktimeline.so KTL_REGION=AsyncSparse::ParIlu::initialize KTL_INSTANCE=3 KTL_OUT=$R/tl_watt_2_f$f.txt \
    timeout 60 ./AsyncSparse_Perf_time_to_solution --benchmark_filter="time_to_solution/watt_2/par_ilu/" > $R/tl_watt_2_f$f.log 2>&1
  echo "tl $f rc $? $(date +%T)" >> $R/times.txt
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
