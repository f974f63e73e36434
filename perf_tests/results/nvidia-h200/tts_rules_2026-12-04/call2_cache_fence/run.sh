#!/bin/bash
# the device cache with and without its fence on reuse (same binaries, ASYNCSPARSE_X_NOFENCE: an upper bound of what
# stream-ordered reuse could give), alternated twice: time to solution and ParILUT / ParICT steps
cd .gpu; tar xzf g02.tar.gz; cd g02
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
for k in 1 2; do
  for f in fence nofence; do
    if [ $f = nofence ]; then export ASYNCSPARSE_X_NOFENCE=1; else unset ASYNCSPARSE_X_NOFENCE; fi
    echo "== tts $f $k $(date +%T)" >> $R/times.txt
    timeout 100 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|par_ic|par_ilu)/' --benchmark_out=$R/tts_${f}_$k.json --benchmark_out_format=json > $R/tts_${f}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
    echo "== steps $f $k $(date +%T)" >> $R/times.txt
    timeout 60 ./AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_${f}_$k.json --benchmark_out_format=json > $R/steps_${f}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
