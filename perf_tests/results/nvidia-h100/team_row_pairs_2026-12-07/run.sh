#!/bin/bash
# device run: paired rows in the one-team passes (GMRES team cycle's product, one-team Jacobi sweeps) against HEAD
# (old): CUDA unit tests (new, related suites); GMRES problems of 1,024-2,025 rows alternated three times; small SPD
# problems (par_ic, diagonal) alternated twice; host timelines of small ParILUT / ParICT steps; Nsight Compute of
# the one-team GMRES cycle (new, watt_2, ParILU)
R=$PWD
cd .gpu/w30 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=/tmp/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; tar czf $OUT/r.tgz -C /tmp r; }
ts start
timeout 100 ./unit_cuda --gtest_filter='*gmres*:*krylov*:*jacobi*:*trisolve*:*one_team*:*cg_*:*graph*:*setup*' > $O/unit.txt 2>&1
ts "unit rc $?"
export ASYNCSPARSE_TTS_PROBLEMS='watt_2;gen:convdiff2d:32:10;gen:convdiff2d:40:10;gen:convdiff2d:45:10'
F='time_to_solution/[^/]*/(none|diagonal|par_ilu|cusparse_ilu)/'
for r in a b c d e; do for v in old new; do
  timeout 60 ./tts_$v --benchmark_filter="$F" --benchmark_out=$O/g_${v}_$r.json --benchmark_out_format=json > $O/g_${v}_$r.txt 2>&1
  ts "gmres $v $r rc $?"
done; done
unset ASYNCSPARSE_TTS_PROBLEMS
S='time_to_solution/(fv1|fv2|fv3|ted_b|trefethen_2000|bodyy4|bodyy5|bodyy6|nos[1-7]|bcsstk01|bcsstk16|494_bus)/(diagonal|par_ic)/'
for r in a b; do for v in old new; do
  timeout 60 ./tts_$v --benchmark_filter="$S" --benchmark_out=$O/s_${v}_$r.json --benchmark_out_format=json > $O/s_${v}_$r.txt 2>&1
  ts "spd $v $r rc $?"
done; done
H='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu)/'
for v in new old; do
  timeout 80 ./tts_$v --benchmark_filter="$H" --benchmark_out=$O/tts_h_$v.json --benchmark_out_format=json > $O/tts_h_$v.txt 2>&1
  ts "headline $v rc $?"
done
if [ $SECONDS -lt 150 ]; then
for m in cryg2500 fv1 bcsstk16; do
  KOKKOS_PROFILE_LIBRARY=$PWD/libtl.so KTIME_OUT=$O/tl_$m.tsv timeout 40 ./perf_ilut --benchmark_filter="^par_i(lu|c)t_step/$m/exact/" --benchmark_min_time=0.02 > $O/tl_run_$m.txt 2>&1
  ts "tl $m rc $?"
done
fi
if [ $SECONDS -lt 200 ]; then
for m in fv1 bodyy4; do
  KOKKOS_PROFILE_LIBRARY=$PWD/libtl.so KTIME_OUT=$O/tlp_$m.tsv timeout 40 ./tts_new --benchmark_filter="time_to_solution/$m/par_ic/" --benchmark_min_time=0.01 > $O/tlp_run_$m.txt 2>&1
  ts "tlp $m rc $?"
done
fi
if [ $SECONDS -lt 230 ]; then
export ASYNCSPARSE_TTS_PROBLEMS='watt_2'
timeout 60 ncu --kernel-name regex:team_cycle --launch-skip 6 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters --section LaunchStats --section Occupancy -o $O/gm ./tts_new --benchmark_filter="time_to_solution/watt_2/par_ilu/" --benchmark_min_time=0.01 > $O/ncu_run.txt 2>&1
ts "ncu rc $?"
ncu -i $O/gm.ncu-rep --page details > $O/gm_details.txt 2>&1
ncu -i $O/gm.ncu-rep --page source --csv --print-source sass > $O/gm_sass.csv 2>&1
ts "ncu import rc $?"
fi
ts end
