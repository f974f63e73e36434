#!/bin/bash
# CUDA unit tests of 18aaeb5; ParILU + GMRES(30) on large convection-diffusion grids with each triangular-solve mode
# (TTS binary of 20bd550, two rounds)
cd .gpu; tar xJf t13.tar.xz; cd t13; gzip -1 mat/*.mtx
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/m; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 120 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='gen:convdiff2d:768:10;gen:convdiff2d:1024:1;gen:convdiff2d:1024:100;gen:convdiff2d:1448:10'
F='time_to_solution/[^/]*/(par_ilu|par_ilu_jacobi|par_ilu_jacobi1|par_ilu_jacobi2|par_ilu_isai)/'
for k in 1 2; do
  timeout 200 ./AsyncSparse_Perf_time_to_solution --benchmark_filter="$F" --benchmark_out=$R/cd_$k.json --benchmark_out_format=json > $R/cd_$k.txt 2>&1; ts "cd $k rc $?"
done
cd $OUT && tar czf m.tar.gz m && rm -rf m
#!/bin/bash
# LU pairs take Jacobi(3), ISAI values in single precision on GPUs: CUDA unit tests; the time-to-solution headline
# (defaults, and the default with working-precision ISAI values); large problems with each mode, two rounds
cd .gpu; tar xJf t15.tar.xz; cd t15; gzip -1 mat/*.mtx
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/p; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 120 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
timeout 170 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut|par_ic_working|par_ilu_working)/' \
  --benchmark_out=$R/tts_h.json --benchmark_out_format=json > $R/tts_h.txt 2>&1; ts "tts rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='L2D;L3D;gen:aniso2d:1024:1e-3:30;gen:lap3d7:100;gen:lap3d27:80;gen:convdiff2d:1024:10;gen:convdiff2d:1448:10;L2D@gmres;L3D@gmres;gen:lap3d7:100@gmres'
F='time_to_solution/[^/]*/(par_ic|par_ic_working|par_ic_jacobi|par_ict|par_ict_isai|par_ilu|par_ilu_isai|par_ilut|par_ilut_isai)/'
for k in 1 2; do
  timeout 190 ./AsyncSparse_Perf_time_to_solution --benchmark_filter="$F" --benchmark_out=$R/big_$k.json --benchmark_out_format=json > $R/big_$k.txt 2>&1; ts "big $k rc $?"
done
cd $OUT && tar czf p.tar.gz p && rm -rf p
#!/bin/bash
# LU pairs take Jacobi(3), ISAI values in single precision on GPUs: CUDA unit tests; the time-to-solution headline
# (defaults, and the default with working-precision ISAI values); large problems with each mode, two rounds
cd .gpu; tar xJf t16.tar.xz; cd t16; gzip -1 mat/*.mtx
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/q; mkdir -p $R; nvidia-smi > $R/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date +%T)" >> $R/times.txt; }
ts start
timeout 120 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; ts "unit rc $?"
timeout 170 ./AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut|par_ic_working|par_ilu_working)/' \
  --benchmark_out=$R/tts_h.json --benchmark_out_format=json > $R/tts_h.txt 2>&1; ts "tts rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='L2D;L3D;gen:aniso2d:1024:1e-3:30;gen:lap3d7:100;gen:lap3d27:80;gen:convdiff2d:768:10;gen:convdiff2d:1024:1;gen:convdiff2d:1024:10;gen:convdiff2d:1024:100;gen:convdiff2d:1448:10;L3D@gmres;gen:lap3d7:100@gmres'
F='time_to_solution/[^/]*/(par_ic|par_ic_working|par_ict|par_ict_isai|par_ilu|par_ilu_isai|par_ilut|par_ilut_isai)/'
for k in 1 2; do
  timeout 230 ./AsyncSparse_Perf_time_to_solution --benchmark_filter="$F" --benchmark_out=$R/big_$k.json --benchmark_out_format=json > $R/big_$k.txt 2>&1; ts "big $k rc $?"
done
cd $OUT && tar czf q.tar.gz q && rm -rf q
#!/bin/bash
# CUDA unit tests of the change with the two ISAI tests adapted (working precision) and the rule test moved
cd .gpu; tar xJf t17.tar.xz; cd t17; gzip -1 mat/*.mtx
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_TEST_DATA_DIR=$PWD/../../unit_tests/data
R=$OUT/u; mkdir -p $R
echo "start $(date +%T)" > $R/times.txt
timeout 150 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1; echo "unit rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf u.tar.gz u && rm -rf u
