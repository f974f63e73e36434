#!/bin/bash
# device run: the CUDA unit tests of the final code (the carveout test alone, then all)
R=$PWD
cd .gpu/w34 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=/tmp/r; mkdir -p $O
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; tar czf $OUT/r.tgz -C /tmp r; }
ts start
timeout 60 ./unit_cuda --gtest_filter='*one_team_launch_prefers_l1*' > $O/unit_l1.txt 2>&1
ts "unit l1 rc $?"
timeout 240 ./unit_cuda > $O/unit_all.txt 2>&1
ts "unit all rc $?"
ts end
