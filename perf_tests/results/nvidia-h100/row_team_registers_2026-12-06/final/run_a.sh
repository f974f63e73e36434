#!/bin/bash
# row-team kernels with the register bound (LaunchBounds<256, 8>): CUDA unit tests, ParIC / ParILU sweeps and
# ParILUT / ParICT steps against b69eec0 (alternated, two rounds), the time-to-solution headline
cd .gpu; tar xJf p7a.tar.xz; cd p7a; xz -d mat/*.xz; gzip -1 mat/*.mtx
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/ta; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 100 ./unit_cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
F='^BM_(par_ic|par_ilu)_(sweep|5sweeps|factorization)/|^BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/'
for r in 1 2; do for v in old new; do
  ASYNCSPARSE_PAR_ILU_PROBLEMS='L2D;L3D;bcsstk16' timeout 100 ./ilu_$v --benchmark_filter="$F" --benchmark_out=$R/ilu_${v}_$r.json --benchmark_out_format=json > $R/ilu_${v}_$r.txt 2>&1; ts "ilu $v $r rc $?"
done; done
cd $OUT && tar czf ta.tar.gz ta && rm -rf ta
