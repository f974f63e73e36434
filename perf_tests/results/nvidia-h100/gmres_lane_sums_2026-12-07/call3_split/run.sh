#!/bin/bash
# device run: CGS2's dot products with several threads per column while the columns are fewer than half the team's
# threads (split) against 2a561b6 (sum4: four sums per lane, one thread per column) and 11d90b4 (old) — CUDA unit
# tests (split); GMRES problems of 1,024-2,025 rows alternated three times; the headline of split
R=$PWD
cd .gpu/w28 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=$OUT/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
timeout 120 ./unit_cuda > $O/unit.txt 2>&1
ts "unit rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:40:10;gen:convdiff2d:45:10'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for r in a b c; do for v in old sum4 split; do
  timeout 120 ./tts_$v --benchmark_filter="$F" --benchmark_out=$O/g_${v}_$r.json --benchmark_out_format=json > $O/g_${v}_$r.txt 2>&1
  ts "gmres $v $r rc $?"
done; done
unset ASYNCSPARSE_TTS_PROBLEMS
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
timeout 130 ./tts_split --benchmark_filter="$H" --benchmark_out=$O/tts_h_split.json --benchmark_out_format=json > $O/tts_h_split.txt 2>&1
ts "headline split rc $?"
cd $OUT && tar czf r.tgz r && rm -rf r
