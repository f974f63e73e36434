#!/bin/bash
# the device scans and compactions by CUB and by Kokkos::parallel_scan, 1,000 to 4,000,000 items (d29)
cd .gpu; for d in d09 d29; do tar xzf $d.tar.gz; done
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
nvidia-smi > $R/nvidia-smi.txt 2>&1
for k in 1 2; do
  echo "== scan $k $(date +%T)" >> $R/times.txt
  timeout 120 ./d29/AsyncSparse_Perf_device_scan --benchmark_out=$R/scan_$k.json --benchmark_out_format=json > $R/scan_$k.txt 2>&1
  echo "rc $? $(date +%T)" >> $R/times.txt
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
