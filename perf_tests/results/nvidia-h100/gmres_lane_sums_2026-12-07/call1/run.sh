#!/bin/bash
# device run: CGS2's dot products in the one-team orthogonalization with four sums per lane (new) against 11d90b4
# (old: the library code of 2bee9a0) — CUDA unit tests (new); GMRES problems of 1,024-16,384 rows (watt_2 and
# convection-diffusion grids) alternated old / new three times; the headline of both builds
R=$PWD
cd .gpu/w26 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=$OUT/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
timeout 120 ./unit_cuda > $O/unit.txt 2>&1
ts "unit rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:48:10;gen:convdiff2d:64:10;gen:convdiff2d:128:10'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for r in a b c; do for v in old new; do
  timeout 120 ./tts_$v --benchmark_filter="$F" --benchmark_out=$O/g_${v}_$r.json --benchmark_out_format=json > $O/g_${v}_$r.txt 2>&1
  ts "gmres $v $r rc $?"
done; done
unset ASYNCSPARSE_TTS_PROBLEMS
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for v in new old; do
  timeout 130 ./tts_$v --benchmark_filter="$H" --benchmark_out=$O/tts_h_$v.json --benchmark_out_format=json > $O/tts_h_$v.txt 2>&1
  ts "headline $v rc $?"
done
cd $OUT && tar czf r.tgz r && rm -rf r
