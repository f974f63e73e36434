#!/bin/bash
# device run 2: ParILUT / ParICT steps and sweep lanes on the entry-kernel matrices: old (HEAD), A (lanes walk the
# shorter stretch), B (lanes walk row i of L, exact stretches), alternating
cd .gpu/w11 && mkdir -p q2 && tar xJf q2.tar.xz && cd q2 || exit 1
export LD_LIBRARY_PATH=$PWD/lib ASYNCSPARSE_MATRIX_DIR=$PWD/mat ASYNCSPARSE_PERF_SCALE=paper
O=$OUT/u; mkdir -p $O
ts() { echo "$1 $(date -u +%T)" >> $O/progress.txt; }
ts start
for r in a b c; do for v in B A old; do
  timeout 30 ./perf_ilut_$v --benchmark_filter='^par_i(lu|c)t_step/(bcsstk16|bodyy4|fv1)/exact/' --benchmark_out=$O/step_${v}_$r.json --benchmark_out_format=json > /dev/null 2>&1
  ts "step $v $r rc $?"
done; done
for v in B A old; do
  timeout 30 ./perf_ilut_$v --benchmark_filter='^par_i(lu|c)t_sweep/(bcsstk16|bodyy4|fv1)/lanes' --benchmark_out=$O/lanes_$v.json --benchmark_out_format=json > /dev/null 2>&1
  ts "lanes $v rc $?"
done
cd $OUT && tar czf u.tgz u && rm -rf u
