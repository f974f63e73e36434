#!/bin/bash
# fewer waits per ParILUT / ParICT step: count_new read with the sweeps' flags and both factors' kept totals in one
# read (d27), + both factors' one-team selects read in one copy (d28), against f5f7981's build (d25): CUDA unit tests
# of d28; steps alternated twice; host timelines of a timed step (fourth instance) of d28; time to solution of d28
cd .gpu; for d in d09 d25 d27 d28; do tar xzf $d.tar.gz; done
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
(cd d28 && timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $?" >> $R/times.txt
for k in 1 2; do
  for d in d25 d27 d28; do
    echo "== steps $d $k $(date +%T)" >> $R/times.txt
    timeout 90 ./$d/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_${d}_$k.json --benchmark_out_format=json > $R/steps_${d}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
for m in bcsstk16 cryg2500 fv1; do
  echo "== tl $m $(date +%T)" >> $R/times.txt
  KOKKOS_PROFILE_LIBRARY=$PWD/d25/ktimeline.so KTL_REGION=AsyncSparse::par_ilut_step KTL_INSTANCE=4 KTL_OUT=$R/tl_${m}.txt \
    timeout 60 ./d28/AsyncSparse_Perf_par_ilut --benchmark_filter="^par_ilut_step/$m/exact/" --benchmark_min_time=0.05 > $R/tl_${m}.log 2>&1
  echo "rc $?" >> $R/times.txt
done
echo "== tts $(date +%T)" >> $R/times.txt
timeout 200 ./d28/AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' --benchmark_out=$R/tts.json --benchmark_out_format=json > $R/tts.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
