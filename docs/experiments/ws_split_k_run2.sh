#!/usr/bin/env bash
# ws_split_k_run2.sh - the next run (not yet run): ws_split_k_dev.patch, the first run's patch with its mends (every
# consumer thread arrives for its own accesses, 24 clusters of 4 on 132 SMs, the skip in a loop of its own and in
# the split kernels alone), applied on 249b85f or later: the library, gpu_fused and gpu_tensorcore, tf32-v21
# on ws_split_k_shapes.csv against the library without the patch (BASE_CGP), racecheck on version 46. Then
# `CGP_TEST_REQUIRE_GPU=1 make test` and `make sanitize` before it lands.
# Run from the repository root with OUT set: K_BUDGET=150 OUT=/tmp/out bash docs/experiments/ws_split_k_run2.sh
set -u
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null)}
L=$OUT/k3; mkdir -p $L
t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
left() { echo $((${K_BUDGET:-150} - SECONDS)); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
compute-sanitizer --version | tail -1
make -j16 all build/tests/gpu_fused build/tests/gpu_tensorcore build/sanitize_main > $L/build.log 2>&1; say build $?
timeout -s KILL 30 build/cgp bench --zoo docs/experiments/ws_split_k_shapes.csv --precision tf32 --kernel 46 --baselines none --iters 20 --csv $L/split.csv > $L/split.log 2>&1; say split $?
timeout -s KILL 20 ${BASE_CGP:-base/build/cgp} bench --zoo docs/experiments/ws_split_k_shapes.csv --precision tf32 --kernel 46 --baselines none --iters 20 --csv $L/base.csv > $L/base.log 2>&1; say base $?
for t in gpu_tensorcore gpu_fused; do CGP_TEST_REQUIRE_GPU=1 timeout -s KILL 30 build/tests/$t > $L/$t.log 2>&1; say $t $?; grep -cE "^PASS" $L/$t.log; grep -E "^FAIL" $L/$t.log | head -5; done
tar czf $OUT/k3.tgz -C $OUT k3
[ $(left) -gt 15 ] && { CGP_SANITIZE_KERNELS=46 timeout $(left) compute-sanitizer --tool racecheck --error-exitcode 99 build/sanitize_main > $L/racecheck_v46.log 2>&1; say racecheck_v46 $?; grep -E "RACECHECK SUMMARY" $L/racecheck_v46.log | tail -2; grep -c "^PASS" $L/racecheck_v46.log; grep -E "^FAIL" $L/racecheck_v46.log | head -3; gzip $L/racecheck_v46.log; }
tar czf $OUT/k3.tgz -C $OUT k3
