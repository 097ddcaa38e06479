#!/usr/bin/env bash
# rounding_staged_claims_run1.sh - round_weights_once through shared memory (rounding_staged_dev.patch, landed first:
# HEAD must hold it) with rounding_staged_claims_dev.patch over it (a block claims 4, 2 or 1 consecutive units at
# once, as many as units / blocks and its shared memory allow, lands them side by side in the scratch with 16 loads
# in flight a thread in tf32-v21, 8 in the tf32-v15 family, and counts them with one atomic) against HEAD, in one
# call: HEAD's build (a copy of the tree) beside the patched one, the tf32-v21, tf32-v15 and 3xtf32-v15 benches of
# both in turn, then with the patch `make sanitize` of the three versions and `CGP_TEST_REQUIRE_GPU=1 make test`, each
# only where the call's T seconds (575 unless set) leave it time. Run from the repository root with OUT set and
# HEAD's tree checked out: OUT=/tmp/out bash docs/experiments/rounding_staged_claims_run1.sh (about 500 s); one
# tarball under $OUT (the device tool returns at most 8 files). Set GIT_COMMIT where the machine's git HEAD is not
# the tree's.
set -u
W=$(mktemp -d); L=$W/p; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/p.tgz -C $W p; }
HEAD_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
BASE=$W/base; mkdir -p $BASE; tar cf - --exclude=./build --exclude=./.git . | tar xf - -C $BASE; say copy $?
git apply docs/experiments/rounding_staged_claims_dev.patch; say patch $?
(cd $BASE && GIT_COMMIT=$HEAD_COMMIT make -j8 build/cgp > $L/build_base.log 2>&1; echo "== build_base exit $?") &
GIT_COMMIT=$HEAD_COMMIT+rounding_staged_claims_dev.patch make -j8 build/cgp build/sanitize_main > $L/build.log 2>&1
say build $?; wait; say builds_done 0
bench() { # $1: cgp, $2: shapes, $3: precision, $4: kernel, $5: the file suffix
  timeout -s KILL 30 $1 bench --zoo docs/experiments/$2.csv --precision $3 --baselines none --reduce det --iters 20 \
    --kernel $4 --csv $L/${2}_v${4}_$5.csv > /dev/null 2>&1; say ${2}_v${4}_$5 $?
}
for k in 46 39; do for s in ws_split_k_shapes ws_pair_shapes; do
  bench $BASE/build/cgp $s tf32 $k base; bench build/cgp $s tf32 $k claims
done; done
bench $BASE/build/cgp ws_split_k_shapes 3xtf32 40 base; bench build/cgp ws_split_k_shapes 3xtf32 40 claims; pack
left() { echo $(( ${T:-575} - (SECONDS - t0) )); } # the seconds left of the call's T
if (( $(left) > 130 )); then
  CGP_SANITIZE_KERNELS="46 39 40" timeout -s KILL $(( $(left) < 180 ? $(left) - 10 : 170 )) \
    make GIT_COMMIT=$HEAD_COMMIT+rounding_staged_claims_dev.patch sanitize > $L/sanitize.log 2>&1; say sanitize $?
  tail -3 $L/sanitize.log; cat build/sanitize*.log > $L/sanitize_full.log 2>/dev/null; pack
fi
if (( $(left) > 60 )); then
  CGP_TEST_REQUIRE_GPU=1 timeout -s KILL $(left) \
    make -j16 GIT_COMMIT=$HEAD_COMMIT+rounding_staged_claims_dev.patch test > $L/make_test.log 2>&1; say make_test $?
  grep -E "passed, .* failed" $L/make_test.log | tail -24; grep -E "^FAIL" $L/make_test.log | head
fi
gzip $L/*.log; pack
