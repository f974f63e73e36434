#!/bin/bash
# new build (g04: cached arrays up to 256 MiB, sweeps variants) against the previous one (g02s): CUDA unit tests;
# time to solution alternated twice; the numeric phase's sweep count (par_ic_sweeps1-3) once; ParILUT steps once
cd .gpu; tar xzf g04.tar.gz; tar xzf g02s.tar.gz; cp g02s/AsyncSparse_Perf_time_to_solution g04/tts_old
cd g04
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
echo skipped >> $R/times.txt
F='time_to_solution/[^/]*/(none|diagonal|par_ic|par_ilu)/'
for k in 1 2; do
  for b in old new; do
    B=./AsyncSparse_Perf_time_to_solution; [ $b = old ] && B=./tts_old
    echo "== tts $b $k $(date +%T)" >> $R/times.txt
    timeout 100 $B --benchmark_filter="$F" --benchmark_out=$R/tts_${b}_$k.json --benchmark_out_format=json > $R/tts_${b}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
echo "== sweeps $(date +%T)" >> $R/times.txt
timeout 150 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(diagonal|none|par_ic|par_ilu|par_ic_sweeps[123]|par_ilu_sweeps[123])/' --benchmark_out=$R/tts_sweeps.json --benchmark_out_format=json > $R/tts_sweeps.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
echo "== steps $(date +%T)" >> $R/times.txt
timeout 60 ./AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps.json --benchmark_out_format=json > $R/steps.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
