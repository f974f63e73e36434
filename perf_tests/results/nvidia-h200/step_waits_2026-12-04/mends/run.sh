#!/bin/bash
# CUDA unit tests of the review mends (d31)
cd .gpu; for d in d09 d31; do tar xzf $d.tar.gz; done
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat
R=$OUT/r; mkdir -p $R
echo "== unit $(date +%T)" >> $R/times.txt
(cd d31 && timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
