#!/bin/bash
# device run: Nsight Compute of the one-team GMRES cycle on watt_2 (default ParILU, and no preconditioner), the
# watt_2 ParILU variants of the time-to-solution benchmark twice, a host timeline of the watt_2 ParILU solve
cd .gpu/w31 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
O=/tmp/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; tar czf $OUT/r.tgz --exclude='*.ncu-rep' -C /tmp r; }
ts start
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
V='time_to_solution/watt_2/(none|diagonal|cusparse_ilu|par_ilu|par_ilu_jacobi1|par_ilu_jacobi2|par_ilu_jacobi|par_ilu_isai1|par_ilu_sweeps3|par_ilu_launches|par_ilut|par_ilut_5steps)/'
for r in a b; do
  timeout 90 ./tts_old --benchmark_filter="$V" --benchmark_out=$O/v_$r.json --benchmark_out_format=json > $O/v_$r.txt 2>&1
  ts "variants $r rc $?"
done
KOKKOS_PROFILE_LIBRARY=$PWD/libtl.so KTIME_OUT=$O/tl_watt2.tsv timeout 40 ./tts_old --benchmark_filter="time_to_solution/watt_2/par_ilu/" > $O/tl_run.txt 2>&1
ts "tl rc $?"
for m in par_ilu none; do
  timeout 150 ncu --kernel-name-base demangled --kernel-name regex:GmresTeamCycle --launch-skip 3 --launch-count 1 --set full -o $O/gm_$m ./tts_old --benchmark_filter="time_to_solution/watt_2/$m/" > $O/ncu_run_$m.txt 2>&1
  ts "ncu $m rc $?"
  ncu -i $O/gm_$m.ncu-rep --page details > $O/gm_${m}_details.txt 2>&1
  ncu -i $O/gm_$m.ncu-rep --page source --csv --print-source sass > $O/gm_${m}_sass.csv 2>&1
  ts "ncu import $m rc $?"
done
ts end
