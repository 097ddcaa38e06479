#!/usr/bin/env bash
# ws_pair_run3.sh - the landing run of tf32-v21's two images a tile with ws_cost's new prices: the build,
# `CGP_TEST_REQUIRE_GPU=1 make test`, then ws_choose_force_dev.patch applied and every configuration of tf32-v21
# forced on a second random sample where two images fit a tile (ws_pair_sweep_shapes.py seed 10: out of the prices'
# fit) and on ws_pair_shapes.csv, the unforced choice (`auto`) first, and the unforced choice beside cuDNN on
# ws_pair_shapes.csv; the results run (scripts/h200_session.sh env build results) last, where the call has the time.
# Run from the repository root with OUT set: OUT=/tmp/out bash docs/experiments/ws_pair_run3.sh (about 350 s; 560
# with the results run)
set -u
W=$(mktemp -d); L=$W/f; mkdir -p $L; t0=$SECONDS  # logs outside $OUT: the device tool returns at most 8 files
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/f.tgz -C $W f; }
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -j16 all > $L/build.log 2>&1; say build $?
CGP_TEST_REQUIRE_GPU=1 timeout 300 make -j16 test > $L/make_test.log 2>&1; say make_test $?
grep -E "passed, .* failed" $L/make_test.log | tail -24; grep -E "^FAIL" $L/make_test.log | head; gzip $L/make_test.log; pack
timeout -s KILL 30 build/cgp bench --zoo docs/experiments/ws_pair_shapes.csv --precision tf32 --kernel 46 --baselines cudnn --reduce det --iters 20 --csv $L/pair_cudnn.csv > $L/pair_cudnn.log 2>&1; say pair_cudnn $?
git apply docs/experiments/ws_choose_force_dev.patch; say force_patch $?
make -j16 build/cgp > $L/build_force.log 2>&1; say build_force $?
python3 docs/experiments/ws_pair_sweep_shapes.py 10 40 > $L/sweep_shapes.csv
B="--precision tf32 --kernel 46 --baselines none --reduce det --iters 20"
for f in auto 128:1:1 128:2:1 128:4:1 64:1:1 64:2:1 128:1:0 128:2:0 128:4:0 64:1:0 64:2:0; do
  [ $((585 - SECONDS)) -gt 6 ] || break
  [ $f = auto ] && unset CGP_DEV_WS_FORCE || export CGP_DEV_WS_FORCE=$f
  timeout -s KILL 20 build/cgp bench --zoo $L/sweep_shapes.csv $B --csv $L/sweep_${f//:/_}.csv > /dev/null 2>&1; say sweep_$f $?
  timeout -s KILL 10 build/cgp bench --zoo docs/experiments/ws_pair_shapes.csv $B --csv $L/fixed_${f//:/_}.csv > /dev/null 2>&1; say fixed_$f $?
done
unset CGP_DEV_WS_FORCE; pack
[ $((585 - SECONDS)) -gt 230 ] || exit 0
git checkout kernels/fused/fused_ws_wgmma.cu
OUT=$OUT/r timeout $((585 - SECONDS)) scripts/h200_session.sh env build results > $L/results_run.log 2>&1; say results $?
grep -E "^--- " $L/results_run.log; pack
