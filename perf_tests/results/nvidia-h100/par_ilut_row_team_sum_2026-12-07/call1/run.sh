#!/bin/bash
# device run: ParILUT/ParICT steps of 0672b41 (head) and the working tree (new: the row-team kernel's residual summed
# by its teams, a compile-time variant) alternating, three rounds
R=$PWD
cd .gpu/w14 && tar xJf q.tar.xz && cd q || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
O=$OUT/r; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
F='^par_i(lu|c)t_step/(L2D|L3D|bcsstk16|bodyy4|fv1)/exact/'
for r in a b c; do for v in head new; do
  timeout 60 ./perf_ilut_$v --benchmark_filter="$F" --benchmark_out=$O/step_${v}_$r.json --benchmark_out_format=json > $O/step_${v}_$r.txt 2>&1
  ts "step $v $r rc $?"
done; done
cd $OUT && tar czf r.tgz r && rm -rf r
