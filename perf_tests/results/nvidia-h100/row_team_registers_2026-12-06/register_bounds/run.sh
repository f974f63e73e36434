#!/bin/bash
# register bounds of the list and row-team sweep kernels: old (b69eec0) against LaunchBounds<256, 6> and <256, 8>
cd .gpu/p6; xz -d mat/*.xz; gzip -1 mat/*.mtx
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/s; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
export ASYNCSPARSE_PAR_ILU_PROBLEMS='L2D;L3D;bcsstk16'
F='^BM_(par_ic|par_ilu)_(sweep|5sweeps)(_list)?/|^BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/'
for r in 1 2; do for v in old b6 b8; do
  timeout 100 ./perf_$v --benchmark_filter="$F" --benchmark_out=$R/${v}_$r.json --benchmark_out_format=json > $R/${v}_$r.txt 2>&1; ts "$v $r rc $?"
done; done
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats"
for v in b6 b8; do for k in ic ilu; do
  ASYNCSPARSE_PAR_ILU_PROBLEMS=L3D timeout 60 ncu --clock-control none --kernel-name-base demangled --kernel-name regex:ParIluSweepFunctor --launch-skip 6 --launch-count 1 $S \
    ./perf_$v --benchmark_filter="^BM_par_${k}_5sweeps/L3D" --benchmark_min_time=0.01 > $R/ncu_${v}_$k.txt 2>&1; ts "ncu $v $k rc $?"
done; done
cd $OUT && tar czf s.tar.gz s && rm -rf s
