#!/bin/bash
# device run: one-team passes that load a row's first P entries before summing (team_row_sum; P = 4: new, 2: p2,
# 8: p8) against main (old): CUDA unit tests (new, all); watt_2, convection-diffusion grids and small SPD problems
# alternated; headline of new; Nsight Compute of new's team cycle
R=$PWD
cd .gpu/w36 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=/tmp/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; tar czf $OUT/r.tgz --exclude='*.ncu-rep' -C /tmp r; }
ts start
timeout 100 ./unit_new --gtest_filter='*gmres*:*krylov*:*jacobi*:*trisolve*:*one_team*:*team*:*arnoldi*:*cg_*' > $O/unit.txt 2>&1
ts "unit rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:45:10'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for r in a b c; do for v in old new p2 p8; do [ -x ./tts_$v ] || continue
  timeout 60 ./tts_$v --benchmark_filter="$F" --benchmark_out=$O/g_${v}_$r.json --benchmark_out_format=json > $O/g_${v}_$r.txt 2>&1
  ts "gmres $v $r rc $?"
done; done
unset ASYNCSPARSE_TTS_PROBLEMS
S='time_to_solution/(fv1|trefethen_2000|bodyy4|nos[1-7]|bcsstk01|494_bus|1138_bus)/(diagonal|par_ic)/'
for r in a; do for v in old new; do
  timeout 60 ./tts_$v --benchmark_filter="$S" --benchmark_out=$O/s_${v}_$r.json --benchmark_out_format=json > $O/s_${v}_$r.txt 2>&1
  ts "spd $v $r rc $?"
done; done
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
timeout 90 ./tts_new --benchmark_filter="$H" --benchmark_out=$O/tts_h_new.json --benchmark_out_format=json > $O/tts_h_new.txt 2>&1
ts "headline new rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
for v in $NCU; do
  timeout 60 ncu --kernel-name-base demangled --kernel-name regex:GmresTeamCycle --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section SourceCounters -o $O/gm_$v ./tts_$v --benchmark_filter="time_to_solution/watt_2/par_ilu/" > $O/ncu_run_$v.txt 2>&1
  ncu -i $O/gm_$v.ncu-rep --page details > $O/gm_${v}_details.txt 2>&1
  ncu -i $O/gm_$v.ncu-rep --page source --csv --print-source sass > $O/gm_${v}_sass.csv 2>&1; gzip -f $O/gm_${v}_sass.csv
  ts "ncu $v rc $?"
done
ts end
