#!/bin/bash
# graph_from_iteration 8 / 1 / 2 alternated twice (diagonal PCG and the default ParIC, SPD matrices); the ParIC
# triangular-solve variants once; a host timeline of fv1's ParIC set-up + solve
cd .gpu; tar xzf g01.tar.gz; cd g01
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
B=./AsyncSparse_Perf_time_to_solution
for k in 1 2; do
  for g in 8 1 2; do
    echo "== tts g=$g $k $(date +%T)" >> $R/times.txt
    ASYNCSPARSE_TTS_GRAPH_FROM_ITERATION=$g timeout 100 $B --benchmark_filter='time_to_solution/[^/]*/(diagonal|par_ic)/' --benchmark_out=$R/tts_g${g}_$k.json --benchmark_out_format=json > $R/tts_g${g}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
echo "== variants $(date +%T)" >> $R/times.txt
ASYNCSPARSE_TTS_GRAPH_FROM_ITERATION=1 timeout 150 $B --benchmark_filter='time_to_solution/[^/]*/(diagonal|par_ic_(jacobi|jacobi1|jacobi2|isai|isai1|isai_p1|one_team|launches))/' --benchmark_out=$R/tts_variants.json --benchmark_out_format=json > $R/tts_variants.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
for m in fv1; do
  ASYNCSPARSE_TTS_PROBLEMS=$m KOKKOS_PROFILE_LIBRARY=$PWD/ktimeline.so KTL_REGION=AsyncSparse::ParIc::initialize KTL_INSTANCE=3 KTL_OUT=$R/tl_${m}.txt \
    timeout 40 $B --benchmark_filter="time_to_solution/$m/par_ic/" > $R/tl_${m}.log 2>&1
  echo "tl rc $? $(date +%T)" >> $R/times.txt
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
