#!/usr/bin/env bash
# rounding_claims_run1.sh - round_weights_once with rounding_claims_dev.patch (a block claims 4, 2 or 1 units at once,
# as many as units / blocks allows, and keeps 16 loads in flight across them in tf32-v21: one claim and 3 load round
# trips a block on 8x512->512 7x7, where it took 4 claims and 8 round trips) against HEAD, in one call: the patched
# tree's build, tf32-v21, tf32-v15 and 3xtf32-v15 benches, gpu_tensorcore, gpu_random_shapes and `make sanitize` of
# the three versions, then HEAD's build and the same benches. Run from the repository root with OUT set and HEAD's
# tree checked out: OUT=/tmp/out bash docs/experiments/rounding_claims_run1.sh (about 470 s); one tarball under $OUT
# (the device tool returns at most 8 files). Set GIT_COMMIT where the machine's git HEAD is not the tree's.
set -u
W=$(mktemp -d); L=$W/p; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/p.tgz -C $W p; }
HEAD_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench_all() { # $1: the file suffix
  for k in 46 39; do for s in ws_split_k_shapes ws_pair_shapes; do
    timeout -s KILL 30 build/cgp bench --zoo docs/experiments/$s.csv --precision tf32 --baselines none --reduce det \
      --iters 20 --kernel $k --csv $L/${s}_v${k}_$1.csv > /dev/null 2>&1; say ${s}_v${k}_$1 $?
  done; done
  timeout -s KILL 30 build/cgp bench --zoo docs/experiments/ws_split_k_shapes.csv --precision 3xtf32 --baselines none \
    --reduce det --iters 20 --kernel 40 --csv $L/ws_split_k_shapes_v40_$1.csv > /dev/null 2>&1; say v40_$1 $?
}
git apply docs/experiments/rounding_claims_dev.patch; say patch $?
export GIT_COMMIT=$HEAD_COMMIT+rounding_claims_dev.patch
make -j16 build/cgp build/tests/gpu_tensorcore build/tests/gpu_random_shapes build/sanitize_main > $L/build.log 2>&1
say build $?
bench_all claims; pack
CGP_TEST_REQUIRE_GPU=1 timeout 150 build/tests/gpu_tensorcore > $L/gpu_tensorcore.log 2>&1; say gpu_tensorcore $?
tail -2 $L/gpu_tensorcore.log
CGP_TEST_REQUIRE_GPU=1 timeout 60 build/tests/gpu_random_shapes > $L/gpu_random_shapes.log 2>&1
say gpu_random_shapes $?
tail -2 $L/gpu_random_shapes.log
CGP_SANITIZE_KERNELS="46 39 40" timeout -s KILL 170 make sanitize > $L/sanitize.log 2>&1; say sanitize $?
tail -3 $L/sanitize.log; cat build/sanitize*.log > $L/sanitize_full.log 2>/dev/null; gzip $L/*.log; pack
git apply -R docs/experiments/rounding_claims_dev.patch; say unpatch $?
export GIT_COMMIT=$HEAD_COMMIT
make -j16 build/cgp > $L/build_base.log 2>&1; say build_base $?
bench_all base; pack
