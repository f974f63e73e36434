#!/bin/bash
# row-team kernel, windows as a separate instantiation (the unstaged kernel as before): indices of the other operand's
# row windows staged in team memory; factor = staged entries / (rows per team x longest row)
cd .gpu/w2; tar xJf q.tar.xz; cd q; (cd mat && xz -d *.xz && gzip -1 *.mtx)
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/w2; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
export ASYNCSPARSE_PAR_ILU_PROBLEMS='L2D;L3D;bcsstk16;gen:lap3d7:64'
F='^BM_par_(ic|ilu)_(sweep|5sweeps|5sweeps_row_team|sweep_row_team)/|^BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/'
b() { timeout 80 ./perf_base --benchmark_filter="$F" --benchmark_out=$R/base_$1.json --benchmark_out_format=json > $R/base_$1.txt 2>&1; ts "base $1 rc $?"; }
b 1
for v in 0 2 3 5; do
  ASYNCSPARSE_ROW_TEAM_WINDOWS=$v timeout 80 ./perf_x --benchmark_filter="$F" --benchmark_out=$R/x${v}.json --benchmark_out_format=json > $R/x${v}.txt 2>&1; ts "x$v rc $?"
done
b 2
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis"
export ASYNCSPARSE_PAR_ILU_PROBLEMS=L3D
for v in base 3; do
  if [ $v = base ]; then bin=./perf_base; else bin=./perf_x; fi
  ASYNCSPARSE_ROW_TEAM_WINDOWS=$v timeout 60 ncu --clock-control none --kernel-name-base demangled --kernel-name regex:RowTeamSweepFunctor --launch-skip 3 --launch-count 1 $S $bin --benchmark_filter="^BM_par_ic_sweep_row_team/L3D" > $R/ncu_ic_$v.txt 2>&1; ts "ncu $v rc $?"
done
cd $OUT && tar czf w2.tar.gz w2 && rm -rf w2
