#!/bin/bash
# team-spread list sums: memcheck of the new tests, CUDA unit tests, perf A/B (old = b69eec0, new), ncu of the new kernel
cd .gpu; tar xJf p3.tar.xz; cd p3; xz -d mat/*.xz; gzip -1 mat/*.mtx
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/r; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 120 compute-sanitizer --tool memcheck ./unit_cuda --gtest_filter='*list_team*:*par_ilu_list*' > $R/memcheck.txt 2>&1; ts "memcheck rc $?"
timeout 100 ./unit_cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
export ASYNCSPARSE_PAR_ILU_PROBLEMS='L2D;L3D;bcsstk16'
F='^BM_(par_ic|par_ilu)_(sweep|5sweeps)(_list)?/|^BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/'
for r in 1 2; do for v in old new; do
  timeout 100 ./perf_$v --benchmark_filter="$F" --benchmark_out=$R/${v}_$r.json --benchmark_out_format=json > $R/${v}_$r.txt 2>&1; ts "$v $r rc $?"
done; done
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section SourceCounters"
for k in ic ilu; do
  ASYNCSPARSE_PAR_ILU_PROBLEMS=L3D timeout 100 ncu --clock-control none --kernel-name-base demangled --kernel-name regex:ParIluListTeamSweepFunctor --launch-skip 6 --launch-count 1 $S \
    ./perf_new --benchmark_filter="^BM_par_${k}_5sweeps/L3D" --benchmark_min_time=0.01 > $R/ncu_team_$k.txt 2>&1; ts "ncu $k rc $?"
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
