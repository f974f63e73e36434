#!/bin/bash
# 20bd550 (Impl::launch_rows shared by the row-per-thread product and the Jacobi sweeps): CUDA unit tests; issue 17's
# sweep / spmv, 5 sweeps vs cuSPARSE, ParILUT / ParICT steps; the time-to-solution headline; the tri-solve auto rule on
# large 2D / 3D problems (two rounds)
cd .gpu; tar xJf t11.tar.xz; cd t11; gzip -1 mat/*.mtx
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/k; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 120 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
ASYNCSPARSE_PAR_ILU_PROBLEMS='L2D;L3D;bcsstk16' timeout 100 ./AsyncSparse_Perf_par_ilu \
  --benchmark_filter='^BM_(par_ic|par_ilu)_(sweep|5sweeps)/|^BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/' \
  --benchmark_out=$R/par_ilu.json --benchmark_out_format=json > $R/par_ilu.txt 2>&1; ts "par_ilu rc $?"
timeout 110 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
  --benchmark_out=$R/tts_h.json --benchmark_out_format=json > $R/tts_h.txt 2>&1; ts "tts rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='L2D;L3D;gen:lap2d:512;gen:aniso2d:1024:1e-3:30;gen:convdiff2d:1024:10;gen:lap3d27:32;gen:lap3d27:48;gen:lap3d27:80;gen:lap3d7:64;gen:lap3d7:100'
F='time_to_solution/[^/]*/(none|diagonal|par_ic|par_ic_jacobi|par_ic_jacobi1|par_ic_jacobi2|par_ic_isai|par_ilu|par_ilu_jacobi|par_ilu_jacobi1|par_ilu_jacobi2|par_ilu_isai)/'
for k in 1 2; do
  timeout 120 ./AsyncSparse_Perf_time_to_solution --benchmark_filter="$F" --benchmark_out=$R/study_$k.json --benchmark_out_format=json > $R/study_$k.txt 2>&1; ts "study $k rc $?"
done
unset ASYNCSPARSE_TTS_PROBLEMS
timeout 100 ./AsyncSparse_Perf_par_ilut --benchmark_filter='^par_i(lu|c)t_step/.*/exact' \
  --benchmark_out=$R/par_ilut.json --benchmark_out_format=json > $R/par_ilut.txt 2>&1; ts "par_ilut rc $?"
cd $OUT && tar czf k.tar.gz k && rm -rf k
