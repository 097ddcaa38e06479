#!/usr/bin/env bash
# ws_split_k_run1.sh - the first run of ws_split_k_run1_dev.patch (applied on 87c21a1), as it ran on an H200 of the
# device tool (2026-12-06, about 540 s of device time left): the library and the GPU tests built, the split paths'
# first launches, every gpu_* suite, then tf32-v21 with the split and without it (BASE_CGP: 87c21a1's cgp, built in a
# worktree) on deep layers on small images (ws_split_k_shapes.csv), then racecheck on version 46.
# Run from the repository root with OUT set: K_BUDGET=330 OUT=/tmp/out bash docs/experiments/ws_split_k_run1.sh
set -u
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null)}
L=$OUT/k; mkdir -p $L
t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
left() { echo $((${K_BUDGET:-440} - SECONDS)); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -j16 all $(ls tests/gpu/gpu_*.c | sed 's|tests/gpu/\(.*\)\.c|build/tests/\1|') build/sanitize_main > $L/build.log 2>&1; say build $?
for s in "--n 8 --cin 512 --cout 512 --h 7 --w 7" "--n 16 --cin 256 --cout 256 --h 16 --w 16" "--n 6 --cin 96 --cout 200 --h 9 --w 9"; do
  timeout -s KILL 40 build/cgp bench --baselines none --precision tf32 --kernel 46 --padding same --iters 3 $s >> $L/first.log 2>&1; say "first $s" $?
done
grep -E "tf32-v21|rror|FAIL|mismatch" $L/first.log | head -12
CGP_TEST_REQUIRE_GPU=1 CGP_TEST_FILTER='^gpu_' CGP=build/cgp BUILD=build timeout $(($(left) - 100)) tests/run_tests.sh > $L/gpu_tests.log 2>&1; say gpu_tests $?
grep -E "passed, .* failed" $L/gpu_tests.log | tail -20
grep -E "^FAIL" $L/gpu_tests.log | head -20
gzip $L/gpu_tests.log
tar czf $OUT/k.tgz -C $OUT k
[ $(left) -gt 25 ] && { timeout $(left) build/cgp bench --zoo docs/experiments/ws_split_k_shapes.csv --precision tf32 --kernel 46 --baselines cudnn --iters 20 --csv $L/split.csv > $L/split.log 2>&1; say split $?; }
[ $(left) -gt 15 ] && { timeout $(left) ${BASE_CGP:-base/build/cgp} bench --zoo docs/experiments/ws_split_k_shapes.csv --precision tf32 --kernel 46 --baselines none --iters 20 --csv $L/base.csv > $L/base.log 2>&1; say base $?; }
tar czf $OUT/k.tgz -C $OUT k
[ $(left) -gt 40 ] && { CGP_SANITIZE_KERNELS=46 timeout $(left) compute-sanitizer --tool racecheck --error-exitcode 99 build/sanitize_main > $L/racecheck_v46.log 2>&1; say racecheck_v46 $?; grep -E "RACECHECK SUMMARY|^FAIL" $L/racecheck_v46.log | tail -5; grep -c "^PASS" $L/racecheck_v46.log; gzip $L/racecheck_v46.log; }
tar czf $OUT/k.tgz -C $OUT k
