#!/bin/bash
# device run: why watt_2's default ParILU takes 4, 5.6 or 8 ms in different processes of the same binary (clock
# samples, kernel times), and the one-team GMRES cycle's kernel time under Nsight Compute's fixed clocks for
# old (b3c60d5) / new (P = 4) / p8 / m8 (P = 8 on db611bb); CUDA unit tests of m8
R=$PWD
cd .gpu/w39 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
O=/tmp/r; mkdir -p $O
ts() { echo "$1 $(date -u +%T.%N)" >> $O/progress.txt; tar czf $OUT/r.tgz --exclude='*.nsys-rep' --exclude='*.sqlite' -C /tmp r; }
which nsys ncu > $O/which.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu,pstate --format=csv -lms 10 > $O/clocks.csv 2>&1 &
SMI=$!
ts start
ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data timeout 120 ./unit_p8 > $O/unit_p8.txt 2>&1
ts "unit p8 rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
for r in 1 2 3 4 5 6 7 8 9 10; do
  ts "p$r begin"
  timeout 30 ./tts_old --benchmark_filter='time_to_solution/watt_2/par_ilu/' --benchmark_out=$O/w_old_$r.json --benchmark_out_format=json > $O/w_old_$r.txt 2>&1
  ts "p$r end rc $?"
done
for r in 1 2 3 4 5 6 7 8; do
  ts "q$r begin"
  OMP_NUM_THREADS=4 OMP_PROC_BIND=spread OMP_PLACES=cores timeout 30 ./tts_old --benchmark_filter='time_to_solution/watt_2/par_ilu/' --benchmark_out=$O/w_omp4_$r.json --benchmark_out_format=json > $O/w_omp4_$r.txt 2>&1
  ts "q$r end rc $?"
done
kill $SMI
for r in 1 2 3 4; do
  timeout 60 nsys profile -t cuda -s none --cpuctxsw=none -o $O/ns_$r ./tts_old --benchmark_filter='time_to_solution/watt_2/par_ilu/' --benchmark_out=$O/ns_$r.json --benchmark_out_format=json > $O/ns_run_$r.txt 2>&1
  timeout 60 nsys stats -q -r cuda_gpu_kern_sum,cuda_gpu_trace,cuda_api_sum -f csv -o $O/ns_$r $O/ns_$r.nsys-rep > /dev/null 2>&1
  gzip -f $O/ns_${r}_*.csv; ts "nsys $r rc $?"
done
for m in par_ilu none; do for v in old new m8 p8; do [ $m = none ] && [ $v = new ] && continue
  K=6; [ $m = none ] && K=6
  timeout 90 ncu --kernel-name-base demangled --kernel-name regex:GmresTeamCycle --launch-skip 3 --launch-count $K --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum --csv ./tts_$v --benchmark_filter="time_to_solution/watt_2/$m/" > $O/ncu_${m}_$v.csv 2> $O/ncu_${m}_$v.err
  ts "ncu $m $v rc $?"
done; done
ts end
