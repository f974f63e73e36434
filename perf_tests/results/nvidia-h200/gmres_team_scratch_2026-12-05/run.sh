#!/bin/bash
# GMRES team cycles with the Hessenberg matrix and rotations in team scratch: CUDA unit tests; GMRES
# problems of 1,024-16,384 rows with the new build's default (team cycles up to 2,048 rows), team cycles at every size
# (rows 1000000), four kernels (0) and the previous build's default (d63a691: work in global memory), alternated 3 times
cd .gpu; tar xJf t05.tar.xz; cd t05
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper \
  ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/r; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:48:10;gen:convdiff2d:64:10;gen:convdiff2d:90:10;gen:convdiff2d:128:10;gen:convdiff2d:64:30'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for k in 1 2 3; do
  for v in new old always never; do
    B=./AsyncSparse_Perf_time_to_solution; [ $v = old ] && B=./AsyncSparse_Perf_time_to_solution_d63a691
    case $v in always) export ASYNCSPARSE_TTS_GMRES_ONE_TEAM_ROWS=1000000;; never) export ASYNCSPARSE_TTS_GMRES_ONE_TEAM_ROWS=0;; *) unset ASYNCSPARSE_TTS_GMRES_ONE_TEAM_ROWS;; esac
    timeout 120 $B --benchmark_filter="$F" --benchmark_out=$R/g_${v}_$k.json --benchmark_out_format=json > $R/g_${v}_$k.txt 2>&1; ts "g $v $k rc $?"
  done
done
unset ASYNCSPARSE_TTS_PROBLEMS ASYNCSPARSE_TTS_GMRES_ONE_TEAM_ROWS
for p in mat/watt_2.mtx.gz gen:convdiff2d:32:10; do
  for pr in none jacobi par_ilu; do
    timeout 30 ./asyncsparse solve $p --prec $pr --no-progress >> $R/driver.txt 2>&1
  done
done; ts driver
cd $OUT && tar czf r.tar.gz r && rm -rf r
#!/bin/bash
# the headline time-to-solution benchmark twice with the team-scratch build (t05, already unpacked by t05_run.sh or here)
cd .gpu; [ -d t05 ] || tar xJf t05.tar.xz; cd t05
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/h; mkdir -p $R
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
for k in 1; do
  timeout 250 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
    --benchmark_out=$R/tts_$k.json --benchmark_out_format=json > $R/tts_$k.txt 2>&1; ts "tts$k rc $?"
done
cd $OUT && tar czf h.tar.gz h && rm -rf h
