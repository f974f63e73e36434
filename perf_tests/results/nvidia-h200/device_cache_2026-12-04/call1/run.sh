#!/bin/bash
# process-wide cache of device arrays: CUDA unit tests; time to solution with the cache on and off (same binary,
# ASYNCSPARSE_DEVICE_CACHE=0), alternated twice; host timelines of one fv1 / bcsstk16 ParIC set-up + solve on / off;
# ParILUT / ParICT steps on / off
cd .gpu; tar xzf e01.tar.gz; cd e01
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
timeout 220 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; echo "rc $? $(date +%T)" >> $R/times.txt
F='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for k in 1 2; do
  for c in 1 0; do
    echo "== tts cache=$c $k $(date +%T)" >> $R/times.txt
    ASYNCSPARSE_DEVICE_CACHE=$c timeout 100 ./AsyncSparse_Perf_time_to_solution --benchmark_filter="$F" --benchmark_out=$R/tts_c${c}_$k.json --benchmark_out_format=json > $R/tts_c${c}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
for m in fv1 bcsstk16; do
  for c in 1 0; do
    echo "== tl $m cache=$c $(date +%T)" >> $R/times.txt
    ASYNCSPARSE_DEVICE_CACHE=$c ASYNCSPARSE_TTS_PROBLEMS=$m KOKKOS_PROFILE_LIBRARY=$PWD/ktimeline.so KTL_REGION=AsyncSparse::ParIc::initialize KTL_INSTANCE=3 KTL_OUT=$R/tl_${m}_c$c.txt \
      timeout 40 ./AsyncSparse_Perf_time_to_solution --benchmark_filter="time_to_solution/$m/par_ic/" > $R/tl_${m}_c$c.log 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
for c in 1 0; do
  echo "== steps cache=$c $(date +%T)" >> $R/times.txt
  ASYNCSPARSE_DEVICE_CACHE=$c timeout 60 ./AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_c$c.json --benchmark_out_format=json > $R/steps_c$c.txt 2>&1
  echo "rc $? $(date +%T)" >> $R/times.txt
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
