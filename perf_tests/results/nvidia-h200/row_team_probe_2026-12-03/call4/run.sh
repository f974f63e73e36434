#!/bin/bash
# probe: team kernel without product lists: one-time numeric phase and time to solution, alternated with the list kernel
cd .gpu; tar xzf d03.tar.gz; cd d03
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
F='BM_par_i(c|lu)_(sweep|5sweeps|factorization)/(L3D|bcsstk16)/|BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/(L3D|bcsstk16)/'
T='time_to_solution/(L3D|bcsstk16)/(diagonal|par_ic)/'
run() { tag=$1; shift; echo "== $tag $(date +%T)" >> $R/times.txt
  env "$@" timeout 100 ./Perf_par_ilu --benchmark_filter="$F" --benchmark_out=$R/$tag.json --benchmark_out_format=json > $R/$tag.txt 2>&1; echo "rc $?" >> $R/times.txt
  env "$@" timeout 100 ./Perf_tts --benchmark_filter="$T" --benchmark_out=$R/tts_$tag.json --benchmark_out_format=json > $R/tts_$tag.txt 2>&1; echo "rc $?" >> $R/times.txt; }
run off1
run r32_4_1 ASYNCSPARSE_ROWTEAM=32,4,1
run r16_8_1 ASYNCSPARSE_ROWTEAM=16,8,1
run off2
run r32_4_1b ASYNCSPARSE_ROWTEAM=32,4,1
cd $OUT && tar czf r.tar.gz r && rm -rf r
