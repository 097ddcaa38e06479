#!/usr/bin/env bash
# ws_wgmma_first_run.sh - the first H200 run of ws_wgmma_dev.patch (tf32-v20, v21; docs/perf-log.md, "tf32-v19, v20
# and v21: the first warp-specialised kernels" and "... the first measurement", an H100's), in one device call, from
# the repository root of a tree with the patch applied (`git apply docs/experiments/ws_wgmma_dev.patch`). Each step's
# output goes to $OUT; the first launches run under `timeout -s KILL` (a device call that tried them once stopped
# answering; the H100 run did not hang), and a version that fails its smoke run is left out of the steps after it.
#     OUT=/tmp/out bash docs/experiments/ws_wgmma_first_run.sh
set -u
OUT=${OUT:-/tmp/ws-first-run}
mkdir -p "$OUT"
start=$SECONDS
note() { echo "== $* ($((SECONDS - start)) s)"; }

make -j"$(nproc)" all build/sanitize_main > "$OUT/build.log" 2>&1
note "build exit $?"
ok=""
for k in 46 45; do
    timeout -s KILL 20 build/cgp bench --baselines none --precision tf32 --kernel $k --n 2 --cin 64 --cout 128 \
        --h 16 --w 16 --padding same --iters 5 > "$OUT/smoke_v$k.txt" 2>&1
    rc=$?
    note "smoke of version $k exit $rc"
    grep -E "^fused|rror|FAIL" "$OUT/smoke_v$k.txt" | head -3
    [ $rc -eq 0 ] && ok="$ok $k"
done
[ -n "$ok" ] || exit 3
CGP_SANITIZE_KERNELS="$ok" timeout -s KILL 120 build/sanitize_main > "$OUT/sweep.txt" 2>&1
note "fp64 sweep of$ok exit $?: $(grep -c '^PASS' "$OUT/sweep.txt") passed, $(grep -c '^FAIL' "$OUT/sweep.txt") failed"
grep '^FAIL' "$OUT/sweep.txt" | head -5
timeout -s KILL 240 build/cgp select --zoo --precision tf32 --candidates-csv "$OUT/select_zoo_tf32.csv" \
    --csv "$OUT/select_zoo.csv" > "$OUT/select.txt" 2>&1
note "select exit $?"
tail -5 "$OUT/select.txt"
timeout -s KILL 60 build/cgp roofline --overlap --csv "$OUT/overlap.csv" > "$OUT/overlap.txt" 2>&1
note "overlap probe exit $?"
cat "$OUT/overlap.txt"
