#!/bin/bash
# Nsight Compute with source lines (-lineinfo build of HEAD's code): the row-team sweep kernel (IC, ILU) and the list kernel (IC) on L3D
cd .gpu; rm -rf q6; tar xJf q6.tar.xz; cd q6
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_PERF_SCALE=paper ASYNCSPARSE_PAR_ILU_PROBLEMS=L3D
R=$OUT/f; mkdir -p $R; ncu --version > $R/ncu_version.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
N="ncu --clock-control none --kernel-name-base demangled --import-source yes --set full"
for k in ic ilu; do
  timeout 150 $N --kernel-name regex:RowTeamSweepFunctor --launch-skip 3 --launch-count 1 -o $R/rowteam_$k \
    ./perf --benchmark_filter="^BM_par_${k}_sweep/L3D" --benchmark_min_time=0.01 > $R/rowteam_$k.log 2>&1; ts "rowteam $k rc $?"
done
timeout 150 $N --kernel-name regex:ParIluSweepFunctor --launch-skip 6 --launch-count 1 -o $R/list_ic \
  ./perf --benchmark_filter="^BM_par_ic_5sweeps/L3D" --benchmark_min_time=0.01 > $R/list_ic.log 2>&1; ts "list ic rc $?"
for f in rowteam_ic rowteam_ilu list_ic; do
  [ -f $R/$f.ncu-rep ] || continue
  ncu -i $R/$f.ncu-rep --page details > $R/${f}_details.txt 2>&1
  ncu -i $R/$f.ncu-rep --page source --csv --print-source cuda > $R/${f}_source_cuda.csv 2>&1
  ncu -i $R/$f.ncu-rep --page source --csv --print-source sass > $R/${f}_source_sass.csv 2>&1
done
ls -la $R > $R/listing.txt; rm -f $R/*.ncu-rep; ts done
cd $OUT && tar czf f.tar.gz f && rm -rf f
