#!/bin/bash
# probe: team-kernel sweeps, configurations alternated with the list kernel (env off)
cd .gpu; tar xzf d01.tar.gz; cd d01
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
F='BM_par_i(c|lu)_(sweep|5sweeps)/(L3D|bcsstk16|L2D)/|BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/(L3D|bcsstk16|L2D)/'
run() { tag=$1; shift; echo "== $tag $(date +%T)" >> $R/times.txt
  env "$@" timeout 100 ./Perf_par_ilu --benchmark_filter="$F" --benchmark_out=$R/$tag.json --benchmark_out_format=json > $R/$tag.txt 2>&1; echo "rc $?" >> $R/times.txt; }
run off1
run t32v8 ASYNCSPARSE_ROWTEAM=32,8
run t32v4 ASYNCSPARSE_ROWTEAM=32,4
run t16v8 ASYNCSPARSE_ROWTEAM=16,8
run t16v16 ASYNCSPARSE_ROWTEAM=16,16
run off2
run t64v4 ASYNCSPARSE_ROWTEAM=64,4
run t32v16 ASYNCSPARSE_ROWTEAM=32,16
run t32v8b ASYNCSPARSE_ROWTEAM=32,8
cd $OUT && tar czf r.tar.gz r && rm -rf r
