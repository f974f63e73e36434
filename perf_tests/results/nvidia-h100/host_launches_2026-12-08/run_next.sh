#!/bin/bash
# device run: GMRES's one-team cycles with an uninitialized host array for the cycle's results (fix) against 4073a07
# (old, the code of 318f4a4): CUDA unit tests of fix; the Kokkos launches on the host's execution space and their host
# times (Kokkos Tools, khost.cpp) in watt_2's default ParILU, old / fix, and over the whole headline of fix; watt_2's
# default ParILU in sixteen alternated rounds; watt_2 and the grids (none, diagonal, par_ilu, cuSPARSE), eight rounds;
# the headline of fix.
R=$PWD
cd .gpu/w44 && tar xJf q.tar.xz && cd q || exit 1
cp ../libkhost.so .
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
O=/tmp/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; tar czf $OUT/r.tgz -C /tmp r; }
ts start
ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data timeout 150 ./unit_fix > $O/unit_fix.txt 2>&1
ts "unit fix rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
W='time_to_solution/watt_2/par_ilu/'
for r in a b c d e f; do for v in old fix; do
  KOKKOS_PROFILE_LIBRARY=$PWD/libkhost.so KHOST_OUT=$O/kh_${v}_$r.txt timeout 30 ./tts_$v --benchmark_filter="$W" --benchmark_out=$O/kh_${v}_$r.json --benchmark_out_format=json > /dev/null 2>&1
done; done; ts "khost watt_2"
for r in a b c d e f g h i j k l m n o p; do for v in old fix; do
  timeout 30 ./tts_$v --benchmark_filter="$W" --benchmark_out=$O/w_${v}_$r.json --benchmark_out_format=json > /dev/null 2>&1
done; done; ts "watt_2 rounds"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:45:10'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for r in a b c d e f g h; do for v in old fix; do
  timeout 60 ./tts_$v --benchmark_filter="$F" --benchmark_out=$O/g_${v}_$r.json --benchmark_out_format=json > /dev/null 2>&1
done; done; ts "gmres rounds"
unset ASYNCSPARSE_TTS_PROBLEMS
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for v in fix; do
  timeout 90 ./tts_$v --benchmark_filter="$H" --benchmark_out=$O/tts_h_$v.json --benchmark_out_format=json > $O/tts_h_$v.txt 2>&1
  ts "headline $v rc $?"
done
KOKKOS_PROFILE_LIBRARY=$PWD/libkhost.so KHOST_OUT=$O/kh_headline_fix.txt timeout 90 ./tts_fix --benchmark_filter="$H" --benchmark_out=$O/kh_headline_fix.json --benchmark_out_format=json > /dev/null 2>&1
ts "khost headline fix rc $?"
ts end
