#!/bin/bash
# device run: one-team kernels with the largest L1 (Compat::parallel_for_prefer_l1: GMRES team cycle, one-team CGS2,
# one-team Jacobi and exact triangular solves) against main (old): CUDA unit tests (new, related suites); GMRES
# problems of 1,024-2,304 rows alternated five times; small SPD problems alternated three times; both headlines;
# Nsight Compute of the new team cycle on watt_2 (ParILU)
R=$PWD
cd .gpu/w32 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=/tmp/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; tar czf $OUT/r.tgz --exclude='*.ncu-rep' -C /tmp r; }
ts start
timeout 100 ./unit_cuda --gtest_filter='*gmres*:*krylov*:*jacobi*:*trisolve*:*one_team*:*cg_*:*graph*:*setup*:*arnoldi*' > $O/unit.txt 2>&1
ts "unit rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:40:10;gen:convdiff2d:45:10;gen:convdiff2d:48:10'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for r in a b c d; do for v in old new; do
  timeout 60 ./tts_$v --benchmark_filter="$F" --benchmark_out=$O/g_${v}_$r.json --benchmark_out_format=json > $O/g_${v}_$r.txt 2>&1
  ts "gmres $v $r rc $?"
done; done
unset ASYNCSPARSE_TTS_PROBLEMS
S='time_to_solution/(fv1|fv2|ted_b|trefethen_2000|bodyy4|nos[1-7]|bcsstk01|bcsstk16|494_bus|1138_bus)/(diagonal|par_ic|par_ic_exact)/'
for r in a b; do for v in old new; do
  timeout 60 ./tts_$v --benchmark_filter="$S" --benchmark_out=$O/s_${v}_$r.json --benchmark_out_format=json > $O/s_${v}_$r.txt 2>&1
  ts "spd $v $r rc $?"
done; done
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for v in new; do
  timeout 80 ./tts_$v --benchmark_filter="$H" --benchmark_out=$O/tts_h_$v.json --benchmark_out_format=json > $O/tts_h_$v.txt 2>&1
  ts "headline $v rc $?"
done
if [ $SECONDS -lt 300 ]; then
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
for v in new; do
  timeout 90 ncu --kernel-name-base demangled --kernel-name regex:GmresTeamCycle --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats -o $O/gm_$v ./tts_$v --benchmark_filter="time_to_solution/watt_2/par_ilu/" > $O/ncu_run_$v.txt 2>&1
  ncu -i $O/gm_$v.ncu-rep --page details > $O/gm_${v}_details.txt 2>&1
  ts "ncu $v rc $?"
done
fi
ts end
