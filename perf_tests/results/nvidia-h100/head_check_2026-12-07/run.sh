#!/bin/bash
# device run: HEAD measurements — CUDA unit tests, time-to-solution (headline + all methods on the small group and
# L3D), Krylov kernels, host timelines of the default ParIC set-up, ParILUT / ParICT steps, ParIC / ParILU sweeps
R=$PWD
cd .gpu/w20 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
export ASYNCSPARSE_TEST_DATA_DIR=$R/unit_tests/data
O=$OUT/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
for m in fv1 ted_b trefethen_2000 bodyy4 L3D nos7; do
  KOKKOS_PROFILE_LIBRARY=$PWD/libktl.so KTL_REGION=AsyncSparse::ParIc::initialize KTL_INSTANCE=4 KTL_OUT=$O/tl_$m.txt \
    timeout 40 ./tts --benchmark_filter="time_to_solution/$m/par_ic/" > $O/tl_run_$m.txt 2>&1
  ts "tl $m rc $?"
done
timeout 200 ./unit_cuda > $O/unit.txt 2>&1
ts "unit rc $?"
timeout 150 ./tts --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' \
  --benchmark_out=$O/tts_h.json --benchmark_out_format=json > $O/tts_h.txt 2>&1
ts "tts rc $?"
timeout 100 ./tts --benchmark_filter='time_to_solution/(L3D|fv1|ted_b|trefethen_2000|bodyy4|fv3)/par_ic_' \
  --benchmark_out=$O/tts_v.json --benchmark_out_format=json > $O/tts_v.txt 2>&1
ts "tts variants rc $?"
timeout 90 ./krylov --benchmark_filter='^(krylov_spmv/(L2D|L3D)/(kokkos_kernels|cusparse)|cg_iteration/(L2D|L3D)/(fused|fused_jacobi|fused_par_ic)|pcg_kernel/L3D/)' \
  --benchmark_out=$O/krylov.json --benchmark_out_format=json > $O/krylov.txt 2>&1
ts "krylov rc $?"
F='^par_i(lu|c)t_step/(L2D|L3D|bcsstk16|bodyy4|fv1|cryg2500)/exact/'
timeout 60 ./perf_ilut --benchmark_filter="$F" --benchmark_out=$O/step.json --benchmark_out_format=json > $O/step.txt 2>&1
ts "step rc $?"
ASYNCSPARSE_PAR_ILU_PROBLEMS="L2D;L3D;bcsstk16" timeout 60 ./perf_ilu --benchmark_filter='^BM_(par_ic|par_ilu)_(sweep|5sweeps)/|^BM_baseline_(spmv|cusparse_csric02|cusparse_csrilu02)/' \
  --benchmark_out=$O/sweeps.json --benchmark_out_format=json > $O/sweeps.txt 2>&1
ts "sweeps rc $?"
cd $OUT && tar czf r.tgz r && rm -rf r
