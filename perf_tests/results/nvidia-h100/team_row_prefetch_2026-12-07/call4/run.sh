#!/bin/bash
# device run: one-team row prefetch, P = 8 for A's rows and 4 for the triangles (mix) against b3c60d5 (old), P = 4
# everywhere (new) and P = 8 everywhere (m8): CUDA unit tests of mix; watt_2's default ParILU in eight alternated
# rounds; watt_2 and the grids (none, diagonal, par_ilu, cuSPARSE) and small SPD problems, old / mix alternated;
# Nsight Compute kernel times of the one-team cycle (fixed clocks); headlines of mix and old
R=$PWD
cd .gpu/w40 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
O=/tmp/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; tar czf $OUT/r.tgz -C /tmp r; }
ts start
ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data timeout 120 ./unit_mix > $O/unit_mix.txt 2>&1
ts "unit mix rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
for r in a b c d e f g h; do for v in old new mix m8; do
  timeout 30 ./tts_$v --benchmark_filter='time_to_solution/watt_2/par_ilu/' --benchmark_out=$O/w_${v}_$r.json --benchmark_out_format=json > $O/w_${v}_$r.txt 2>&1
done; ts "watt_2 round $r"; done
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:45:10'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for r in a b c d; do for v in old mix; do
  timeout 60 ./tts_$v --benchmark_filter="$F" --benchmark_out=$O/g_${v}_$r.json --benchmark_out_format=json > $O/g_${v}_$r.txt 2>&1
done; ts "gmres round $r"; done
unset ASYNCSPARSE_TTS_PROBLEMS
S='time_to_solution/(fv1|trefethen_2000|bodyy4|nos[1-7]|bcsstk01|494_bus|1138_bus)/(diagonal|par_ic)/'
for r in a b c; do for v in old mix; do
  timeout 60 ./tts_$v --benchmark_filter="$S" --benchmark_out=$O/s_${v}_$r.json --benchmark_out_format=json > $O/s_${v}_$r.txt 2>&1
done; ts "spd round $r"; done
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
for v in old new mix m8; do
  timeout 60 ncu --kernel-name-base demangled --kernel-name regex:GmresTeamCycle --launch-skip 1 --launch-count 3 --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum --csv ./tts_$v --benchmark_filter="time_to_solution/watt_2/par_ilu/" > $O/ncu_par_ilu_$v.csv 2>&1
  ts "ncu par_ilu $v rc $?"
done
for v in old mix; do
  timeout 60 ncu --kernel-name-base demangled --kernel-name regex:GmresTeamCycle --launch-skip 3 --launch-count 3 --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum --csv ./tts_$v --benchmark_filter="time_to_solution/watt_2/none/" > $O/ncu_none_$v.csv 2>&1
  ts "ncu none $v rc $?"
done
unset ASYNCSPARSE_TTS_PROBLEMS
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for v in mix old; do
  timeout 90 ./tts_$v --benchmark_filter="$H" --benchmark_out=$O/tts_h_$v.json --benchmark_out_format=json > $O/tts_h_$v.txt 2>&1
  ts "headline $v rc $?"
done
ts end
