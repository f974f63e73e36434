#!/bin/bash
# ParILUT / ParICT steps with the entry kernel and the row-team kernel in several shapes (driver, 4 steps, all run)
cd .gpu; tar xzf d09.tar.gz; tar xzf d19.tar.gz
export LD_LIBRARY_PATH=$PWD/d09/lib:$LD_LIBRARY_PATH ASYNCSPARSE_MATRIX_DIR=$PWD/d09/mat
M=$PWD/d09/mat
R=$OUT/r; mkdir -p $R
run() {  # name method matrix args...
  local name=$1; shift
  echo "== $name $(date +%T)" >> $R/times.txt
  timeout 60 ./d19/asyncsparse "$@" --steps 4 --all-steps --no-baselines --json $R/$name.json > $R/$name.txt 2>&1
  echo "rc $?" >> $R/times.txt
}
for mm in gen:lap3d27:64 $M/bcsstk16.mtx.gz $M/fv1.mtx.gz gen:lap2d:1024; do
  f=$(basename $mm .mtx.gz | tr ':' '_')
  for c in ilut ict; do
    run ${c}_${f}_entry $c $mm --sweep-kernel entry
    run ${c}_${f}_rt $c $mm --sweep-kernel row_team
    for vt in 1,1 1,4 1,16 2,4 4,1 4,4 8,1 8,4 16,1 32,1; do
      v=${vt%,*}; t=${vt#*,}; team=$((256 / v)); rows=$((team / t))
      run ${c}_${f}_v${v}t${t} $c $mm --sweep-kernel row_team --vector-length $v --team-size $team --chunk-size $rows
    done
    run ${c}_${f}_entry2 $c $mm --sweep-kernel entry
  done
done
cd $OUT && tar czf r.tar.gz r && rm -rf r
