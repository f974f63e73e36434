#!/bin/bash
# probe: team-kernel sweeps, configurations alternated with the list kernel (env off)
cd .gpu; tar xzf d01.tar.gz; cd d01
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
F='BM_par_i(c|lu)_(sweep|5sweeps)/(L3D|bcsstk16)/|BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/(L3D|bcsstk16)/'
run() { tag=$1; shift; echo "== $tag $(date +%T)" >> $R/times.txt
  env "$@" timeout 100 ./Perf_par_ilu --benchmark_filter="$F" --benchmark_out=$R/$tag.json --benchmark_out_format=json > $R/$tag.txt 2>&1; echo "rc $?" >> $R/times.txt; }
run off1
run t32v1 ASYNCSPARSE_ROWTEAM=32,1
run t32v2 ASYNCSPARSE_ROWTEAM=32,2
run t16v2 ASYNCSPARSE_ROWTEAM=16,2
run t8v4 ASYNCSPARSE_ROWTEAM=8,4
run t64v1 ASYNCSPARSE_ROWTEAM=64,1
run off2
cd $OUT && tar czf r.tar.gz r && rm -rf r
