#!/usr/bin/env bash
# ws_wgmma_short_run.sh - the short device call that first ran ws_wgmma_dev.patch (tf32-v19..v21) and fp32-v12's
# cp.async windows (docs/perf-log.md, "tf32-v19, v20 and v21: the first measurement"; an H100, 298 s of device time
# left), from the root of a tree with the patch applied: build cgp and the sanitizer driver, smoke 44-46 and 38 (W 27)
# under timeout, the fp64 sweep of those versions, the GPU time of 41, 42, 44-46 on one 56x56 shape; ends by END
# seconds, each step's output under $OUT. Its output: results/h100/history/dev/ws_wgmma_short_run.txt.
set -u
if [ -f .commit ]; then GIT_COMMIT=$(cat .commit); export GIT_COMMIT; fi
END=${END:-170}
F="$OUT"
note() { echo "== $* ($SECONDS s)"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -j16 build/cgp build/sanitize_main > /tmp/build.log 2>&1; note "build exit $?"; tail -2 /tmp/build.log
ok=""
for k in 46 45 44; do
  timeout -s KILL 15 build/cgp bench --baselines none --precision tf32 --kernel $k --n 2 --cin 64 --cout 128 \
      --h 16 --w 16 --padding same --iters 5 > "$F/smoke_v$k.txt" 2>&1
  rc=$?; note "smoke $k exit $rc"; grep -E "fused (tf32|fp32) det|rror|FAIL" "$F/smoke_v$k.txt" | head -2
  [ $rc -eq 0 ] && ok="$ok $k"
done
timeout -s KILL 15 build/cgp bench --baselines none --precision fp32 --kernel 38 --n 2 --cin 16 --cout 40 \
    --h 21 --w 27 --padding same --iters 5 > "$F/smoke_v38.txt" 2>&1; rc=$?
note "smoke 38 (W 27) exit $rc"; grep -E "fused (tf32|fp32) det|rror|FAIL" "$F/smoke_v38.txt" | head -2
[ $rc -eq 0 ] && ok="$ok 38"
t=$((END - 40 - SECONDS)); [ $t -gt 60 ] && t=60
if [ -n "$ok" ] && [ $t -gt 10 ]; then
  CGP_SANITIZE_KERNELS="$ok" timeout -s KILL $t build/sanitize_main > "$F/sweep.txt" 2>&1
  note "sweep of$ok exit $?: $(grep -c '^PASS' "$F/sweep.txt") pass, $(grep -c '^FAIL' "$F/sweep.txt") fail"
  grep '^FAIL' "$F/sweep.txt" | head -5
fi
for k in 41 42 44 45 46; do
  t=$((END - SECONDS)); [ $t -gt 8 ] || break; [ $t -gt 10 ] && t=10
  timeout -s KILL $t build/cgp bench --baselines none --precision tf32 --kernel $k --n 32 --cin 64 --cout 64 \
      --h 56 --w 56 --padding same --iters 20 2>&1 | grep -E "fused tf32 det|rror" | head -2
done
note end
# The GPU-time loops of the perf-log's tables (tf32: K in 0 41 42 39 44 45 46; fp32: K in 38 31 10), e.g.
#   build/cgp bench --baselines none --precision tf32 --kernel K --n 32 --cin 128 --cout 128 --h 28 --w 28 \
#       --padding same --iters 20 | grep 'fused tf32 det'
