#!/bin/bash
# device run: one-team row prefetch (team_row_sum, P = 2 / 4 (new) / 8) against b3c60d5 (old) on a steady machine:
# eight alternated rounds; small SPD problems; headlines of old and p8; CUDA unit tests of main (db611bb)
R=$PWD
cd .gpu/w38 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=/tmp/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
nvidia-smi -q -d CLOCK,PERFORMANCE > $O/clocks_start.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; tar czf $OUT/r.tgz -C /tmp r; }
ts start
timeout 60 ./unit_main --gtest_filter='*prefers_l1*:*carveout*:*one_team*' > $O/unit_l1.txt 2>&1
ts "unit l1 rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:45:10'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for r in a b c d e f g h; do for v in old new p2 p8; do
  timeout 60 ./tts_$v --benchmark_filter="$F" --benchmark_out=$O/g_${v}_$r.json --benchmark_out_format=json > $O/g_${v}_$r.txt 2>&1
  ts "gmres $v $r rc $?"
done; done
unset ASYNCSPARSE_TTS_PROBLEMS
S='time_to_solution/(fv1|trefethen_2000|bodyy4|nos[1-7]|bcsstk01|494_bus|1138_bus)/(diagonal|par_ic)/'
for r in a b; do for v in old new p8; do
  timeout 60 ./tts_$v --benchmark_filter="$S" --benchmark_out=$O/s_${v}_$r.json --benchmark_out_format=json > $O/s_${v}_$r.txt 2>&1
  ts "spd $v $r rc $?"
done; done
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for v in p8 old; do
  timeout 90 ./tts_$v --benchmark_filter="$H" --benchmark_out=$O/tts_h_$v.json --benchmark_out_format=json > $O/tts_h_$v.txt 2>&1
  ts "headline $v rc $?"
done
nvidia-smi -q -d CLOCK,PERFORMANCE > $O/clocks_mid.txt 2>&1
timeout 200 ./unit_main > $O/unit_all.txt 2>&1
ts "unit all rc $?"
ts end
