#!/bin/bash
# GMRES's orthogonalization in one team (rows 0 = never, 1000000 = always) x its steps replayed as a CUDA graph (graph
# from iteration 0 = never, 8) on GMRES problems of 1,024-65,536 rows and watt_2, alternated twice (g09: gmres-graph on
# c764f68); then the branch's defaults, the methods of the headline table
cd .gpu; tar xJf g09.tar.xz; cd g09
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:48:10;gen:convdiff2d:64:10;gen:convdiff2d:90:10;gen:convdiff2d:128:10;gen:convdiff2d:256:10;gen:convdiff2d:64:30'
for k in 1 2; do
  for t in 0 1000000; do
    for g in 0 8; do
      echo "== tts rows $t graph $g run $k $(date +%T)" >> $R/times.txt
      ASYNCSPARSE_TTS_GMRES_ONE_TEAM_ROWS=$t ASYNCSPARSE_TTS_GRAPH_FROM_ITERATION=$g timeout 120 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|par_ilu|cusparse_ilu)/' --benchmark_out=$R/tts_${t}_${g}_$k.json --benchmark_out_format=json > $R/tts_${t}_${g}_$k.txt 2>&1
      echo "rc $? $(date +%T)" >> $R/times.txt
    done
  done
done
echo "== tts default $(date +%T)" >> $R/times.txt
unset ASYNCSPARSE_TTS_PROBLEMS
timeout 150 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' --benchmark_out=$R/tts_default.json --benchmark_out_format=json > $R/tts_default.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
