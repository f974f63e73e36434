#!/bin/bash
# exact stretches in the multi-lane dot products of the entry kernel (d26) against f5f7981's build (d25): CUDA unit
# tests; steps alternated twice; lanes study on the small matrices; host timelines of a timed step (fourth instance)
cd .gpu; tar xzf d09.tar.gz; tar xzf d25.tar.gz; tar xzf d26.tar.gz
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
(cd d26 && timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $?" >> $R/times.txt
for k in 1 2; do
  for d in d25 d26; do
    echo "== steps $d $k $(date +%T)" >> $R/times.txt
    timeout 90 ./$d/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_${d}_$k.json --benchmark_out_format=json > $R/steps_${d}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
for d in d25 d26; do
  echo "== lanes $d $(date +%T)" >> $R/times.txt
  timeout 120 ./$d/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_sweep/(bcsstk16|fv1|bodyy4|cryg2500|gen:trefethen:20000|gen:aniso2d:256:1e-3:30)/lanes' --benchmark_min_time=0.1 --benchmark_out=$R/lanes_$d.json --benchmark_out_format=json > $R/lanes_$d.txt 2>&1
  echo "rc $? $(date +%T)" >> $R/times.txt
done
for m in bcsstk16 cryg2500 fv1; do
  for alg in ilut ict; do
    [ $m = cryg2500 ] && [ $alg = ict ] && continue
    echo "== tl $m $alg $(date +%T)" >> $R/times.txt
    KOKKOS_PROFILE_LIBRARY=$PWD/d25/ktimeline.so KTL_REGION=AsyncSparse::par_${alg}_step KTL_INSTANCE=4 KTL_OUT=$R/tl_${m}_${alg}.txt \
      timeout 60 ./d26/AsyncSparse_Perf_par_ilut --benchmark_filter="^par_${alg}_step/$m/exact/" --benchmark_min_time=0.05 > $R/tl_${m}_${alg}.log 2>&1
    echo "rc $?" >> $R/times.txt
  done
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
