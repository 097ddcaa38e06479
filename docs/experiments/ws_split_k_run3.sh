#!/usr/bin/env bash
# ws_split_k_run3.sh - the K split's landing run at 651cd59, as it ran on an H100 of the device tool: the build,
# `CGP_SANITIZE_KERNELS=46 make sanitize`, tf32-v21 on ws_split_k_shapes.csv against a build without the split
# (BASE_CGP: 87c21a1's build/cgp), `CGP_TEST_REQUIRE_GPU=1 make test`, then ws_choose_force_dev.patch applied and
# every (channels, split) pair of tf32-v21 timed on 48 random shapes of its split domain (ws_split_sweep_shapes.py,
# seed 7), and the unforced choice (`auto`) last; ws_choose_fit_dev.py reads the CSVs.
# Run from the repository root with OUT set: BASE_CGP=base/build/cgp OUT=/tmp/out bash docs/experiments/ws_split_k_run3.sh
set -u
L=$OUT/a; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/a.tgz -C $OUT a; }
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -j16 all build/sanitize_main > $L/build.log 2>&1; say build $?
CGP_SANITIZE_KERNELS=46 timeout 120 make sanitize > $L/sanitize.log 2>&1; say sanitize $?
grep -E "SUMMARY" $L/sanitize.log | sed 's/.*=========//' | sort | uniq -c; cp build/sanitize.log $L/sanitize_full.log; gzip $L/sanitize_full.log; pack
B="--precision tf32 --kernel 46 --baselines none --reduce det --iters 20"
timeout -s KILL 30 build/cgp bench --zoo docs/experiments/ws_split_k_shapes.csv $B --csv $L/split.csv > /dev/null 2>&1; say split $?
timeout -s KILL 30 ${BASE_CGP:-base/build/cgp} bench --zoo docs/experiments/ws_split_k_shapes.csv $B --csv $L/base.csv > /dev/null 2>&1; say base $?
CGP_TEST_REQUIRE_GPU=1 timeout 330 make -j16 test > $L/make_test.log 2>&1; say make_test $?
grep -E "passed, .* failed" $L/make_test.log | tail -24; grep -E "^FAIL" $L/make_test.log | head; gzip $L/make_test.log; pack
git apply docs/experiments/ws_choose_force_dev.patch; say force_patch $?
make -j16 build/cgp > $L/build_force.log 2>&1; say build_force $?
python3 docs/experiments/ws_split_sweep_shapes.py 7 48 > $L/sweep_shapes.csv
for f in 64:1 64:2 128:1 128:2 128:4 auto; do
  [ $((580 - SECONDS)) -gt 15 ] || break
  [ $f = auto ] && unset CGP_DEV_WS_FORCE || export CGP_DEV_WS_FORCE=$f
  timeout -s KILL 60 build/cgp bench --zoo $L/sweep_shapes.csv $B --csv $L/sweep_${f/:/_}.csv > $L/sweep_${f/:/_}.log 2>&1; say sweep_$f $?
  pack
done
