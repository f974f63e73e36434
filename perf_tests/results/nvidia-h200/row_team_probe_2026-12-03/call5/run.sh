#!/bin/bash
# probe: the team kernel without product lists against the library's kernels, one-time numeric phase by size
cd .gpu; tar xzf d03.tar.gz; cd d03
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_PAR_ILU_PROBLEMS="gen:lap3d27:32;gen:lap3d27:40;gen:lap3d27:48;gen:lap3d27:80;gen:lap3d7:64;gen:lap3d7:128;fv1"
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
F='BM_par_i(c|lu)_(sweep|factorization)/[^/]*/|BM_baseline_spmv/'
run() { tag=$1; shift; echo "== $tag $(date +%T)" >> $R/times.txt
  env "$@" timeout 140 ./Perf_par_ilu --benchmark_filter="$F" --benchmark_out=$R/$tag.json --benchmark_out_format=json > $R/$tag.txt 2>&1; echo "rc $?" >> $R/times.txt; }
run off1
run r32_4_1 ASYNCSPARSE_ROWTEAM=32,4,1
run off2
run r32_4_1b ASYNCSPARSE_ROWTEAM=32,4,1
cd $OUT && tar czf r.tar.gz r && rm -rf r
