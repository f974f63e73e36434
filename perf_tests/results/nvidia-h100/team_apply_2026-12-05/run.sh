#!/bin/bash
cd .gpu/p1
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
timeout 200 ./AsyncSparse_Perf_team_apply --benchmark_out=$R/ta.json --benchmark_out_format=json > $R/ta.txt 2>&1; echo "ta rc $?" >> $R/times.txt
for v in probe_plain probe_ro_unroll4 probe_sliced_unroll4; do
timeout 100 ncu --launch-skip 40 --launch-count 1 --kernel-name regex:'.*ParallelFor.*' --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy ./AsyncSparse_Perf_team_apply --benchmark_filter="team_apply/watt_2/$v/" > $R/ncu_$v.txt 2>&1; echo "ncu $v rc $?" >> $R/times.txt
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
