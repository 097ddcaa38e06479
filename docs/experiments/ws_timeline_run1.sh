#!/usr/bin/env bash
# ws_timeline_run1.sh - where tf32-v21's launch goes, block by block (issue 39): ws_timeline_dev.patch's probe (each
# role's waits, work and epilogue in SM cycles, one launch a process) on every shape of ws_split_k_shapes.csv, a
# process a shape, and the same benches without the probe beside it (the probe's own cost). HEAD and the patch built
# side by side from clean copies of the tree (a warm machine's build/ and the copies' older file times would let make
# reuse stale objects). Run from the repository root with OUT set: OUT=/tmp/out GIT_COMMIT=<HEAD> bash
# docs/experiments/ws_timeline_run1.sh; one tarball under $OUT; the summary is printed
# (docs/experiments/ws_timeline_summary_dev.py).
set -u
W=$(mktemp -d); L=$W/t; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
HEAD_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for v in base probe; do
  mkdir -p $W/$v; tar cf - --exclude=./build --exclude=./.git . | tar xf - -C $W/$v
done
(cd $W/base && GIT_COMMIT=$HEAD_COMMIT make -j8 build/cgp > $L/build_base.log 2>&1; echo "== build_base exit $?") &
(cd $W/probe && git apply docs/experiments/ws_timeline_dev.patch &&
 GIT_COMMIT=$HEAD_COMMIT+probe make -j8 build/cgp > $L/build_probe.log 2>&1; echo "== build_probe exit $?") &
wait; say builds 0
header=$(head -1 docs/experiments/ws_split_k_shapes.csv)
tail -n +2 docs/experiments/ws_split_k_shapes.csv | while IFS= read -r row; do
  name=$(echo "$row" | cut -d, -f1-6 | tr ',' '_')
  printf '%s\n%s\n' "$header" "$row" > $W/one.csv
  for v in base probe; do
    timeout -s KILL 30 $W/$v/build/cgp bench --zoo $W/one.csv --precision tf32 --baselines none --reduce det \
      --iters 20 --kernel 46 --csv $L/bench_${name}_$v.csv > $L/out_${name}_$v.txt 2>&1; say ${name}_$v $?
  done
done
python3 docs/experiments/ws_timeline_summary_dev.py $L/out_*_probe.txt | tee $L/summary.txt
gzip $L/*.log $L/out_*; tar czf $OUT/t.tgz -C $W t; say done 0
