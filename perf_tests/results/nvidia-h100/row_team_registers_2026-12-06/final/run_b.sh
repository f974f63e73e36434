#!/bin/bash
# row-team kernels with the register bound (LaunchBounds<256, 8>): CUDA unit tests, ParIC / ParILU sweeps and
# ParILUT / ParICT steps against b69eec0 (alternated, two rounds), the time-to-solution headline
cd .gpu; tar xJf p7b.tar.xz; cd p7b; xz -d mat/*.xz; gzip -1 mat/*.mtx
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/tb; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
for r in 1 2; do for v in old new; do
  timeout 100 ./ilut_$v --benchmark_filter='^par_i(lu|c)t_step/[^/]*/exact/' --benchmark_out=$R/ilut_${v}_$r.json --benchmark_out_format=json > $R/ilut_${v}_$r.txt 2>&1; ts "ilut $v $r rc $?"
done; done
timeout 110 ./tts_new --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
  --benchmark_out=$R/tts_h.json --benchmark_out_format=json > $R/tts_h.txt 2>&1; ts "tts rc $?"
cd $OUT && tar czf tb.tar.gz tb && rm -rf tb
