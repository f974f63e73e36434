#!/bin/bash
# part 2: the CUDA unit tests of 22432c5 (matrices from part 1)
cd .gpu; tar xJf q5u.tar.xz; cd q3
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/e; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1; ls mat | wc -l > $R/matrices.txt
timeout 200 ./unit_cuda > $R/cuda_unit_tests.log 2>&1; echo "unit rc $? $(date +%T)" >> $R/times.txt
tail -3 $R/cuda_unit_tests.log
cd $OUT && tar czf e.tar.gz e && rm -rf e
