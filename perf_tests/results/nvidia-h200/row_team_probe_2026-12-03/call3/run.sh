#!/bin/bash
# probe: team-kernel sweeps with R rows per team, configurations alternated with the list kernel (env off)
cd .gpu; tar xzf d02.tar.gz; cd d02
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
F='BM_par_i(c|lu)_(sweep|5sweeps)/(L3D|bcsstk16)/|BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/(L3D|bcsstk16)/'
run() { tag=$1; shift; echo "== $tag $(date +%T)" >> $R/times.txt
  env "$@" timeout 100 ./Perf_par_ilu --benchmark_filter="$F" --benchmark_out=$R/$tag.json --benchmark_out_format=json > $R/$tag.txt 2>&1; echo "rc $?" >> $R/times.txt; }
run off1
run r1_32_2 ASYNCSPARSE_ROWTEAM=1,32,2
run r4_32_1 ASYNCSPARSE_ROWTEAM=4,32,1
run r8_16_1 ASYNCSPARSE_ROWTEAM=8,16,1
run r16_16_1 ASYNCSPARSE_ROWTEAM=16,16,1
run r16_8_1 ASYNCSPARSE_ROWTEAM=16,8,1
run r32_8_1 ASYNCSPARSE_ROWTEAM=32,8,1
run off2
run r8_16_2 ASYNCSPARSE_ROWTEAM=8,16,2
run r4_16_2 ASYNCSPARSE_ROWTEAM=4,16,2
run r8_8_2 ASYNCSPARSE_ROWTEAM=8,8,2
run r32_4_1 ASYNCSPARSE_ROWTEAM=32,4,1
run r64_4_1 ASYNCSPARSE_ROWTEAM=64,4,1
cd $OUT && tar czf r.tar.gz r && rm -rf r
