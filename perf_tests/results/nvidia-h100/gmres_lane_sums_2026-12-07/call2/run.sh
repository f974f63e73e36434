#!/bin/bash
# device run: CGS2's dot products in the one-team orthogonalization with four (sum4) or eight (sum8) sums per lane
# against 11d90b4 (old) — GMRES problems of 1,024-2,025 rows (watt_2 and convection-diffusion grids), old / sum4 /
# sum8 alternated three times
R=$PWD
cd .gpu/w27 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=$OUT/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:40:10;gen:convdiff2d:45:10'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for r in a b c; do for v in old sum4 sum8; do
  timeout 120 ./tts_$v --benchmark_filter="$F" --benchmark_out=$O/g_${v}_$r.json --benchmark_out_format=json > $O/g_${v}_$r.txt 2>&1
  ts "gmres $v $r rc $?"
done; done
cd $OUT && tar czf r.tgz r && rm -rf r
