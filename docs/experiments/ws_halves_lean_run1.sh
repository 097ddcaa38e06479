#!/usr/bin/env bash
# ws_halves_lean_run1.sh - tf32-v21's deep layers (issue 39), two patches measured alone and together against HEAD in
# one call: ws_chunk_halves_dev.patch (a chunk's wgmmas in two groups, the next group's fragments loaded while one
# multiplies; the 64-channel kernels) and rounding_lean_dev.patch (round_weights_once: each unit's next claim made
# while it is written, a 32-bit index an element). HEAD's build first (a copy of the tree), then its build/ copied
# into a copy a patch (and into the tree, both patches) so that make rebuilds only what the patches touch; the
# tf32-v21, tf32-v15 and 3xtf32-v15 benches of the four builds in turn; then, with both patches in the tree,
# `make sanitize` of the three versions and `CGP_TEST_REQUIRE_GPU=1 make test`, each only where the call's T seconds
# (575 unless set) leave it time. Run from the repository root with OUT set: OUT=/tmp/out bash
# docs/experiments/ws_halves_lean_run1.sh; one tarball under $OUT (the device tool returns at most 8 files). Set
# GIT_COMMIT where the machine's git HEAD is not the tree's. A warm machine keeps build/ from its last call and the
# tree's copied files keep their older times, so the tree's build/ is replaced, never reused.
set -u
W=$(mktemp -d); L=$W/h; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/h.tgz -C $W h; }
left() { echo $(( ${T:-575} - (SECONDS - t0) )); }
HEAD_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
ROOT=$PWD HALVES=docs/experiments/ws_chunk_halves_dev.patch LEAN=docs/experiments/rounding_lean_dev.patch
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf build
BASE=$W/base; mkdir -p $BASE; tar cf - --exclude=./build --exclude=./.git . | tar xf - -C $BASE
(cd $BASE && GIT_COMMIT=$HEAD_COMMIT make -j16 build/cgp > $L/build_base.log 2>&1); say build_base $?
for v in halves lean; do
  mkdir -p $W/$v; tar cf - -C $BASE . | tar xf - -C $W/$v # build/ with its times: make rebuilds what the patch touches
done
(cd $W/halves && git apply $ROOT/$HALVES && GIT_COMMIT=$HEAD_COMMIT+halves make -j6 build/cgp > $L/build_halves.log 2>&1
 echo "== build_halves exit $?") &
(cd $W/lean && git apply $ROOT/$LEAN && GIT_COMMIT=$HEAD_COMMIT+lean make -j6 build/cgp > $L/build_lean.log 2>&1
 echo "== build_lean exit $?") &
cp -a $BASE/build build && git apply $HALVES && git apply $LEAN; say patches $?
GIT_COMMIT=$HEAD_COMMIT+halves+lean make -j6 build/cgp build/sanitize_main > $L/build_both.log 2>&1; say build_both $?
wait; say builds_done 0
bench() { # $1: cgp, $2: shapes, $3: precision, $4: kernel, $5: the file suffix
  timeout -s KILL 30 $1 bench --zoo docs/experiments/$2.csv --precision $3 --baselines none --reduce det --iters 20 \
    --kernel $4 --csv $L/${2}_v${4}_$5.csv > /dev/null 2>&1; say ${2}_v${4}_$5 $?
}
for k in 46 39; do for s in ws_split_k_shapes ws_pair_shapes; do
  for v in base halves lean; do bench $W/$v/build/cgp $s tf32 $k $v; done; bench build/cgp $s tf32 $k both
done; done
for v in base halves lean; do bench $W/$v/build/cgp ws_split_k_shapes 3xtf32 40 $v; done
bench build/cgp ws_split_k_shapes 3xtf32 40 both; pack
if (( $(left) > 130 )); then
  CGP_SANITIZE_KERNELS="46 39 40" timeout -s KILL $(( $(left) < 180 ? $(left) - 10 : 170 )) \
    make GIT_COMMIT=$HEAD_COMMIT+halves+lean sanitize > $L/sanitize.log 2>&1; say sanitize $?
  tail -3 $L/sanitize.log; cat build/sanitize*.log > $L/sanitize_full.log 2>/dev/null; pack
fi
if (( $(left) > 60 )); then
  CGP_TEST_REQUIRE_GPU=1 timeout -s KILL $(left) \
    make -j16 GIT_COMMIT=$HEAD_COMMIT+halves+lean test > $L/make_test.log 2>&1; say make_test $?
  grep -E "passed, .* failed" $L/make_test.log | tail -24; grep -E "^FAIL" $L/make_test.log | head
fi
gzip $L/*.log; pack
