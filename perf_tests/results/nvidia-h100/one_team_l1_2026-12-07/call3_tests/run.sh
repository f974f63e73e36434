#!/bin/bash
# device run: the CUDA unit tests of the final code (all, then the carveout test alone), and a second headline of the
# prefer-L1 build
R=$PWD
cd .gpu/w33 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=/tmp/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; tar czf $OUT/r.tgz -C /tmp r; }
ts start
timeout 60 ./unit_cuda --gtest_filter='*one_team_launch_prefers_l1*' > $O/unit_l1.txt 2>&1
ts "unit l1 rc $?"
timeout 240 ./unit_cuda > $O/unit_all.txt 2>&1
ts "unit all rc $?"
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
timeout 80 ./tts_new --benchmark_filter="$H" --benchmark_out=$O/tts_h_new2.json --benchmark_out_format=json > $O/tts_h_new2.txt 2>&1
ts "headline new rc $?"
ts end
