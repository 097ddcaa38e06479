#!/usr/bin/env bash
# rounding_staged_run1.sh - round_weights_once with rounding_staged_dev.patch (a block lands the unit it claims in its
# shared memory by coalesced reads, then writes B's 16-byte units in order: coalesced 16-byte stores, where HEAD
# stores each weight as it was read, 4 bytes scattered over 18 sectors a warp) against HEAD, in one call: HEAD's
# build (a copy of the tree) beside the patched one, the tf32-v21, tf32-v15 and 3xtf32-v15 benches of both in turn,
# then with the patch `make sanitize` of the three versions and `CGP_TEST_REQUIRE_GPU=1 make test`, each only where
# the call's T seconds (575 unless set) leave it time. Run from the repository root with OUT set and HEAD's tree
# checked out: OUT=/tmp/out bash docs/experiments/rounding_staged_run1.sh (about 500 s); one tarball under $OUT (the
# device tool returns at most 8 files). Set GIT_COMMIT where the machine's git HEAD is not the tree's. PATCH and
# SUFFIX run another patch the same way: PATCH=docs/experiments/rounding_staged_claims_dev.patch SUFFIX=claims, over
# a HEAD that holds the staged pass (the CSVs' names end in _base and _$SUFFIX).
set -u
W=$(mktemp -d); L=$W/p; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/p.tgz -C $W p; }
HEAD_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
PATCH=${PATCH:-docs/experiments/rounding_staged_dev.patch}; SUFFIX=${SUFFIX:-staged}; TAG=$(basename $PATCH)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
BASE=$W/base; mkdir -p $BASE; tar cf - --exclude=./build --exclude=./.git . | tar xf - -C $BASE; say copy $?
git apply $PATCH; say patch $?
(cd $BASE && GIT_COMMIT=$HEAD_COMMIT make -j8 build/cgp > $L/build_base.log 2>&1; echo "== build_base exit $?") &
GIT_COMMIT=$HEAD_COMMIT+$TAG make -j8 build/cgp build/sanitize_main > $L/build.log 2>&1
say build $?; wait; say builds_done 0
bench() { # $1: cgp, $2: shapes, $3: precision, $4: kernel, $5: the file suffix
  timeout -s KILL 30 $1 bench --zoo docs/experiments/$2.csv --precision $3 --baselines none --reduce det --iters 20 \
    --kernel $4 --csv $L/${2}_v${4}_$5.csv > /dev/null 2>&1; say ${2}_v${4}_$5 $?
}
for k in 46 39; do for s in ws_split_k_shapes ws_pair_shapes; do
  bench $BASE/build/cgp $s tf32 $k base; bench build/cgp $s tf32 $k $SUFFIX
done; done
bench $BASE/build/cgp ws_split_k_shapes 3xtf32 40 base; bench build/cgp ws_split_k_shapes 3xtf32 40 $SUFFIX; pack
left() { echo $(( ${T:-575} - (SECONDS - t0) )); } # the seconds left of the call's T
if (( $(left) > 130 )); then
  CGP_SANITIZE_KERNELS="46 39 40" timeout -s KILL $(( $(left) < 180 ? $(left) - 10 : 170 )) \
    make GIT_COMMIT=$HEAD_COMMIT+$TAG sanitize > $L/sanitize.log 2>&1; say sanitize $?
  tail -3 $L/sanitize.log; cat build/sanitize*.log > $L/sanitize_full.log 2>/dev/null; pack
fi
if (( $(left) > 60 )); then
  CGP_TEST_REQUIRE_GPU=1 timeout -s KILL $(left) \
    make -j16 GIT_COMMIT=$HEAD_COMMIT+$TAG test > $L/make_test.log 2>&1; say make_test $?
  grep -E "passed, .* failed" $L/make_test.log | tail -24; grep -E "^FAIL" $L/make_test.log | head
fi
gzip $L/*.log; pack
