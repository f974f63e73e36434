#!/bin/bash
# HEAD b86c993 (no device last part of the day until 22:10): CUDA unit tests; issue 17's sweep / spmv, 5 sweeps vs
# cuSPARSE and ParILUT / ParICT steps; the time-to-solution headline; the tri-solve auto rule on wider 3D grids
cd .gpu; tar xJf t9.tar.xz; cd t9
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/g; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 120 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
ASYNCSPARSE_PAR_ILU_PROBLEMS='L2D;L3D;bcsstk16' timeout 150 ./AsyncSparse_Perf_par_ilu \
  --benchmark_filter='^BM_(par_ic|par_ilu)_(sweep|5sweeps)/|^BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/' \
  --benchmark_out=$R/par_ilu.json --benchmark_out_format=json > $R/par_ilu.txt 2>&1; ts "par_ilu rc $?"
timeout 150 ./AsyncSparse_Perf_par_ilut --benchmark_filter='^par_i(lu|c)t_step/.*/exact$' \
  --benchmark_out=$R/par_ilut.json --benchmark_out_format=json > $R/par_ilut.txt 2>&1; ts "par_ilut rc $?"
timeout 110 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
  --benchmark_out=$R/tts_h.json --benchmark_out_format=json > $R/tts_h.txt 2>&1; ts "tts rc $?"
ASYNCSPARSE_TTS_PROBLEMS='gen:lap3d27:32;gen:lap3d27:48;gen:lap3d27:80;gen:lap3d7:64;gen:lap3d7:100' timeout 120 \
  ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(diagonal|par_ic|par_ic_jacobi|par_ic_jacobi1|par_ic_jacobi2|par_ic_isai)/' \
  --benchmark_out=$R/tts_3d.json --benchmark_out_format=json > $R/tts_3d.txt 2>&1; ts "tts3d rc $?"
cd $OUT && tar czf g.tar.gz g && rm -rf g
