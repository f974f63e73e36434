#!/bin/bash
# the final tree: CUDA unit tests
cd .gpu; tar xJf t8.tar.xz; cd t8
export ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/f; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
cd $OUT && tar czf f.tar.gz f && rm -rf f
