#!/bin/bash
# Jacobi sweeps a thread per row on GPUs: CUDA unit tests; AsyncSparse_Perf_trisolve of the new build against
# c8a4c70's binary (the Jacobi and ISAI solves, PCG per triangular-solve mode), alternated twice
cd .gpu; tar xJf t4.tar.xz; cd t4
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/s; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 150 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
F='^BM_spmv_A/|^BM_trisolve/[^/]*/(jacobi|isai/)|^BM_pcg_par_ic/(L2D|L3D|gen:lap3d27:48|gen:lap2d:512|bodyy6|bcsstk16|bcsstk18)/(diag|jacobi1|jacobi2|jacobi3|isai|auto)/'
for k in 1 2; do
  for v in new old; do
    B=./AsyncSparse_Perf_trisolve; [ $v = old ] && B=./trisolve_base_c8a4c70
    timeout 100 $B --benchmark_filter="$F" --benchmark_out=$R/s_${v}_$k.json --benchmark_out_format=json > $R/s_${v}_$k.txt 2>&1; ts "s $v $k rc $?"
  done
done
cd $OUT && tar czf s.tar.gz s && rm -rf s
