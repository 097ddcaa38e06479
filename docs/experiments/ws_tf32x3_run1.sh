#!/usr/bin/env bash
# ws_tf32x3_run1.sh - 3xtf32-v21's first run (issue 39): ws_tf32x3_dev.patch applied to a clean copy of the tree (a
# warm machine's build/ and the copy's older file times would let make reuse stale objects), built; one check of
# version 47 against fp64; `cgp select` of 3xtf32 on the recorded sample (seed 20261204: 400 random shapes and the
# zoo, every candidate checked against fp64 first, then timed by CUDA-graph replay), the data of its verdict and of
# its cost-model row; `make sanitize` on version 47 where the call has the time; then GPU `make test` of the copy
# (its tolerance caps' log: cpu_tolerance and cpu_version_table fail there until the caps and the measured picks are
# recorded, 4 cases with their ASan copies). Run from the repository root with OUT set and the call's seconds in T:
# OUT=/tmp/out T=575 GIT_COMMIT=<HEAD> bash docs/experiments/ws_tf32x3_run1.sh; 5 files under $OUT.
set -u
t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}+3xtf32-v21
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
W=$(mktemp -d)
tar cf - --exclude=./build --exclude=./.git . | tar xf - -C $W
cd $W && git apply docs/experiments/ws_tf32x3_dev.patch || exit 1
make -j16 all build/sanitize_main > /tmp/build.log 2>&1; say build $?; grep -E "error" /tmp/build.log | head
timeout -s KILL 30 build/cgp check --precision 3xtf32 --kernel 47 --n 4 --cin 256 --cout 256 --h 14 --w 14 \
  --padding same 2>&1 | tail -3
timeout -s KILL ${SELECT_S:-150} build/cgp select --random 400 --seed 20261204 --zoo --precision 3xtf32 \
  --csv $OUT/tf32x3_selection.csv --candidates-csv /tmp/candidates.csv > /tmp/select.log 2>&1; say select $?
tail -4 /tmp/select.log; gzip -c /tmp/candidates.csv > $OUT/tf32x3_candidates.csv.gz
gzip -c /tmp/select.log > $OUT/tf32x3_select.log.gz
left=$(( ${T:-575} - (SECONDS - t0) ))
if (( left > 360 )); then
  s=$(( left - 260 )); (( s > 130 )) && s=130
  CGP_SANITIZE_KERNELS="47" timeout -s KILL $s make sanitize > /tmp/sanitize.log 2>&1; say sanitize $?
  tail -3 /tmp/sanitize.log; gzip -c build/sanitize.log > $OUT/sanitize.log.gz
fi
left=$(( ${T:-575} - (SECONDS - t0) )); echo "== $left s left"
CGP_TEST_FILTER=${FILTER:-.} CGP_TEST_REQUIRE_GPU=1 timeout -s KILL $((left - 8)) make -j16 test > /tmp/make_test.log 2>&1
say make_test $?; grep -E "passed, .* failed" /tmp/make_test.log | tail -24; grep -E "^FAIL" /tmp/make_test.log | head -20
gzip -c /tmp/make_test.log > $OUT/make_test.log.gz
