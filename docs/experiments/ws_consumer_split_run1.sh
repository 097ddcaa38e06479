#!/usr/bin/env bash
# ws_consumer_split_run1.sh - the first run (not yet run) of ws_consumer_split_dev.patch: where tf32-v21 splits K over
# a cluster and a tile's right 8 x 8 block lies right of the image (7x7, 5x5, ... with one image a tile), both
# consumer warpgroups multiply the left block, taking its chunks in turn, and the second's sums are added into the
# first's before the cluster's exchange (today the second warpgroup waits out every chunk). First the clean build's
# tf32-v21 on ws_split_k_shapes.csv and ws_pair_shapes.csv, then the patch: the build, `CGP_SANITIZE_KERNELS=46 make
# sanitize`, the same benches, gpu_tensorcore and gpu_fused, then `CGP_TEST_REQUIRE_GPU=1 make test` in the time left.
# Run from the repository root with OUT set: OUT=/tmp/out bash docs/experiments/ws_consumer_split_run1.sh (about 420 s)
set -u
W=$(mktemp -d); L=$W/c; mkdir -p $L; t0=$SECONDS  # logs outside $OUT: the device tool returns at most 8 files
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/c.tgz -C $W c; }
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B="--precision tf32 --kernel 46 --baselines none --reduce det --iters 20"
make -j16 build/cgp > $L/build_base.log 2>&1; say build_base $?
for s in ws_split_k_shapes ws_pair_shapes; do
  timeout -s KILL 30 build/cgp bench --zoo docs/experiments/$s.csv $B --csv $L/${s}_base.csv > /dev/null 2>&1; say ${s}_base $?
done
git apply docs/experiments/ws_consumer_split_dev.patch; say patch $?
export GIT_COMMIT=$GIT_COMMIT+ws_consumer_split_dev.patch
make -j16 all build/sanitize_main > $L/build.log 2>&1; say build $?
for s in ws_split_k_shapes ws_pair_shapes; do
  timeout -s KILL 30 build/cgp bench --zoo docs/experiments/$s.csv $B --csv $L/${s}_patch.csv > /dev/null 2>&1; say ${s}_patch $?
done
pack
CGP_SANITIZE_KERNELS=46 timeout 120 make sanitize > $L/sanitize.log 2>&1; say sanitize $?
grep -E "SUMMARY" $L/sanitize.log | sed 's/.*=========//' | sort | uniq -c; gzip $L/sanitize.log; pack
CGP_TEST_REQUIRE_GPU=1 timeout $((585 - SECONDS)) make -j16 test > $L/make_test.log 2>&1; say make_test $?
grep -E "passed, .* failed" $L/make_test.log | tail -24; grep -E "^FAIL" $L/make_test.log | head; gzip $L/make_test.log; pack
