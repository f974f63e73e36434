#!/bin/bash
# device run: the one-team GMRES cycle's product with its rows' first 8 entries loaded ahead (prod) against 318f4a4
# (old): CUDA unit tests of prod; watt_2's default ParILU, ten alternated rounds; watt_2 and the grids (none, diagonal,
# par_ilu, cuSPARSE), six rounds; Nsight Compute of the cycle (fixed clocks). watt_2's ParILU between processes (old):
# each cycle launch fenced and timed (Kokkos Tools, kcycle.cpp) in twelve processes; environment variants (one OpenMP
# thread, threads bound to cores, eager module loading); Nsight Compute without clock or cache control in eight
# processes. Headlines of prod and old.
R=$PWD
cd .gpu/w43 && tar xJf q.tar.xz && cd q || exit 1
cp ../libkcycle.so .
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
O=/tmp/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1; nvidia-smi topo -m >> $O/nvidia-smi.txt 2>&1; lscpu > $O/lscpu.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; tar czf $OUT/r.tgz -C /tmp r; }
ts start
ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data timeout 150 ./unit_prod > $O/unit_prod.txt 2>&1
ts "unit prod rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
W='time_to_solution/watt_2/par_ilu/'
for r in a b c d e f g h i j; do for v in old prod; do
  timeout 30 ./tts_$v --benchmark_filter="$W" --benchmark_out=$O/w_${v}_$r.json --benchmark_out_format=json > $O/w_${v}_$r.txt 2>&1
done; done; ts "watt_2 rounds"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:45:10'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for r in a b c d e f; do for v in old prod; do
  timeout 60 ./tts_$v --benchmark_filter="$F" --benchmark_out=$O/g_${v}_$r.json --benchmark_out_format=json > $O/g_${v}_$r.txt 2>&1
done; done; ts "gmres rounds"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
N="ncu --kernel-name-base demangled --kernel-name regex:GmresTeamCycle --csv"
M="--metrics gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum"
for v in old prod; do
  timeout 60 $N --launch-skip 1 --launch-count 3 $M ./tts_$v --benchmark_filter="$W" > $O/ncu_par_ilu_$v.csv 2>&1
  timeout 60 $N --launch-skip 3 --launch-count 3 $M ./tts_$v --benchmark_filter="time_to_solution/watt_2/none/" > $O/ncu_none_$v.csv 2>&1
done; ts "ncu fixed clocks"
for r in a b c d e f g h i j k l; do
  KOKKOS_PROFILE_LIBRARY=$PWD/libkcycle.so KCYCLE_OUT=$O/kc_$r.txt timeout 30 ./tts_old --benchmark_filter="$W" --benchmark_out=$O/kc_$r.json --benchmark_out_format=json > $O/kc_$r.out 2>&1
done; ts "kcycle"
for r in a b c d e f g h; do
  timeout 30 ./tts_old --benchmark_filter="$W" --benchmark_out=$O/e_def_$r.json --benchmark_out_format=json > /dev/null 2>&1
  OMP_NUM_THREADS=1 timeout 30 ./tts_old --benchmark_filter="$W" --benchmark_out=$O/e_omp1_$r.json --benchmark_out_format=json > /dev/null 2>&1
  OMP_PROC_BIND=close OMP_PLACES=cores timeout 30 ./tts_old --benchmark_filter="$W" --benchmark_out=$O/e_bind_$r.json --benchmark_out_format=json > /dev/null 2>&1
  CUDA_MODULE_LOADING=EAGER timeout 30 ./tts_old --benchmark_filter="$W" --benchmark_out=$O/e_eager_$r.json --benchmark_out_format=json > /dev/null 2>&1
done; ts "environment variants"
for r in a b c d e f g h; do
  timeout 60 $N --launch-skip 3 --launch-count 3 --clock-control none --cache-control none --section SpeedOfLight --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats --page details ./tts_old --benchmark_filter="$W" --benchmark_out=$O/nf_$r.json --benchmark_out_format=json > $O/nf_$r.csv 2>&1
done; ts "ncu free clocks"
timeout 30 ncu --query-metrics --chip gh100 > $O/ncu_metrics_gh100.txt 2>&1
unset ASYNCSPARSE_TTS_PROBLEMS
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for v in prod old; do
  timeout 90 ./tts_$v --benchmark_filter="$H" --benchmark_out=$O/tts_h_$v.json --benchmark_out_format=json > $O/tts_h_$v.txt 2>&1
  ts "headline $v rc $?"
done
ts end
