#!/bin/bash
# device run: the one-team GMRES cycle's Jacobi sweeps reading the factors' sliced copies (new) against main (old):
# CUDA unit tests (new, related suites); watt_2 alternated; headline of new; Nsight Compute of new's team cycle
R=$PWD
cd .gpu/w35 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=/tmp/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; tar czf $OUT/r.tgz --exclude='*.ncu-rep' -C /tmp r; }
ts start
timeout 150 ./unit_new --gtest_filter='*gmres*:*krylov*:*jacobi*:*trisolve*:*one_team*:*team*:*arnoldi*:*cg_*:*graph*' > $O/unit.txt 2>&1
ts "unit rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:40:10'
F='time_to_solution/[^/]*/(none|par_ilu|par_ilut|cusparse_ilu)/'
for r in a b c d; do for v in old new; do
  timeout 60 ./tts_$v --benchmark_filter="$F" --benchmark_out=$O/g_${v}_$r.json --benchmark_out_format=json > $O/g_${v}_$r.txt 2>&1
  ts "gmres $v $r rc $?"
done; done
unset ASYNCSPARSE_TTS_PROBLEMS
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
timeout 90 ./tts_new --benchmark_filter="$H" --benchmark_out=$O/tts_h_new.json --benchmark_out_format=json > $O/tts_h_new.txt 2>&1
ts "headline new rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
for v in new old; do
  timeout 60 ncu --kernel-name-base demangled --kernel-name regex:GmresTeamCycle --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section SourceCounters -o $O/gm_$v ./tts_$v --benchmark_filter="time_to_solution/watt_2/par_ilu/" > $O/ncu_run_$v.txt 2>&1
  ncu -i $O/gm_$v.ncu-rep --page details > $O/gm_${v}_details.txt 2>&1
  ncu -i $O/gm_$v.ncu-rep --page source --csv --print-source sass > $O/gm_${v}_sass.csv 2>&1; gzip -f $O/gm_${v}_sass.csv
  ts "ncu $v rc $?"
done
ts end
