#!/bin/bash
# scans and compactions of fewer than 32,768 items by Kokkos::parallel_scan on CUDA (d30) against d28: CUDA unit tests
# of d30; steps alternated twice; the device-scan benchmark of d30; time to solution of d30
cd .gpu; for d in d09 d28 d30; do tar xzf $d.tar.gz; done
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat ASYNCSPARSE_PERF_SCALE=paper
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
echo "== unit $(date +%T)" >> $R/times.txt
(cd d30 && timeout 200 ./AsyncSparse_UnitTest_Cuda > $R/cuda_unit_tests.log 2>&1); echo "rc $?" >> $R/times.txt
for k in 1 2; do
  for d in d28 d30; do
    echo "== steps $d $k $(date +%T)" >> $R/times.txt
    timeout 90 ./$d/AsyncSparse_Perf_par_ilut --benchmark_filter='^par_ic?l?u?t_step/[^/]*/exact/' --benchmark_min_time=0.2 --benchmark_out=$R/steps_${d}_$k.json --benchmark_out_format=json > $R/steps_${d}_$k.txt 2>&1
    echo "rc $? $(date +%T)" >> $R/times.txt
  done
done
echo "== scan $(date +%T)" >> $R/times.txt
timeout 120 ./d30/AsyncSparse_Perf_device_scan --benchmark_out=$R/scan.json --benchmark_out_format=json > $R/scan.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
echo "== tts $(date +%T)" >> $R/times.txt
timeout 200 ./d30/AsyncSparse_Perf_time_to_solution --benchmark_filter='time_to_solution/[^/]*/(none|diagonal|cusparse_ic|cusparse_ilu|par_ic|par_ilu|par_ict|par_ilut)/' --benchmark_out=$R/tts.json --benchmark_out_format=json > $R/tts.txt 2>&1
echo "rc $? $(date +%T)" >> $R/times.txt
cd $OUT && tar czf r.tar.gz r && rm -rf r
