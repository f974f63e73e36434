#!/bin/bash
# Set-up changes (transposed factor from the symbolic phase; both Jacobi triangles' checks in one wait) and the GMRES
# branches with their new launches off (one-team rows 0, graph from iteration 0): against 5c503e6's build (b09),
# alternated twice; CUDA unit tests of g09 (gmres-graph on c764f68) first; host timelines of one set-up + solve
# (fifth instance) of ParIC and diagonal PCG on fv1, bcsstk16 and L3D
cd .gpu; for d in g09 b09; do tar xJf $d.tar.xz; done
export LD_LIBRARY_PATH=$PWD/g09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/g09/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../unit_tests/data
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
(cd g09 && timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $? $(date +%T)" >> $R/times.txt
F='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for k in 1 2; do
  for d in b09 g09; do
    echo "== tts $d $k $(date +%T)" >> $R/times.txt
    ASYNCSPARSE_TTS_GMRES_ONE_TEAM_ROWS=0 ASYNCSPARSE_TTS_GRAPH_FROM_ITERATION=0 timeout 130 ./$d/AsyncSparse_Perf_time_to_solution --benchmark_filter="$F" --benchmark_out=$R/tts_${d}_$k.json --benchmark_out_format=json > $R/tts_${d}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
for m in fv1 bcsstk16 L3D; do
  for p in ParIc Jacobi; do
    q=par_ic; [ $p = Jacobi ] && q=diagonal
    echo "== tl $m $p $(date +%T)" >> $R/times.txt
    KOKKOS_PROFILE_LIBRARY=$PWD/g09/ktimeline.so KTL_REGION=AsyncSparse::$p::compute KTL_INSTANCE=5 KTL_OUT=$R/tl_${m}_$q.txt \
      timeout 60 ./g09/AsyncSparse_Perf_time_to_solution --benchmark_filter="time_to_solution/$m/$q/" > $R/tl_${m}_$q.log 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
