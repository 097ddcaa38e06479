#!/usr/bin/env bash
# ws_rounding_ring_run1.sh - what bounds tf32-v21 on the deep 7x7 shapes (issue 39): (1) the share of a launch that
# the weights' rounding pass takes (round_weights_once, every launch): the same benches at HEAD and with
# ws_rounding_share_dev.patch, which skips the pass on every launch after a plan's first (timing only: the workspace
# then holds the rounded weights of the first; the check runs first and rounds); (2) ncu's warp stall reasons, per
# source line, of the 64-channel split-2 kernel on 8x512->512 7x7 at HEAD (the producer warpgroup's against the
# consumers'); (3) tf32-v21 with ws_deep_ring_dev.patch: up to 8 stages a ring where they fit (was 4). Run from the
# repository root with OUT set: OUT=/tmp/out bash docs/experiments/ws_rounding_ring_run1.sh (186 s on an H100); one
# tarball under $OUT (the device tool returns at most 8 files).
set -u
W=$(mktemp -d); L=$W/r; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/r.tgz -C $W r; }
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B1="--precision tf32 --baselines none --reduce det"; B="$B1 --iters 20"
make -j16 build/cgp > $L/build_base.log 2>&1; say build_base $?
for k in 46 39; do
  for s in ws_split_k_shapes ws_pair_shapes; do
    timeout -s KILL 30 build/cgp bench --zoo docs/experiments/$s.csv $B --kernel $k --csv $L/${s}_v${k}_base.csv > /dev/null 2>&1; say ${s}_v${k}_base $?
  done
done
printf 'n,cin,cout,h,w,padding\n8,512,512,7,7,same\n' > $W/one.csv
timeout -s KILL 90 ncu --set full --import-source yes -k regex:ws_wgmma_conv_gelu_mean -c 1 -o $L/ncu_8x512_7x7 \
  build/cgp bench --zoo $W/one.csv $B1 --kernel 46 --iters 1 > $L/ncu.log 2>&1; say ncu $?
timeout -s KILL 30 ncu --import $L/ncu_8x512_7x7.ncu-rep --page source --csv --print-source sass > $L/ncu_source.csv 2> /dev/null; say ncu_source $?
gzip $L/ncu_source.csv; pack
git apply docs/experiments/ws_rounding_share_dev.patch; say patch $?
export GIT_COMMIT=$GIT_COMMIT+ws_rounding_share_dev.patch
make -j16 build/cgp > $L/build.log 2>&1; say build $?
for k in 46 39; do
  for s in ws_split_k_shapes ws_pair_shapes; do
    timeout -s KILL 30 build/cgp bench --zoo docs/experiments/$s.csv $B --kernel $k --csv $L/${s}_v${k}_patch.csv > /dev/null 2>&1; say ${s}_v${k}_patch $?
  done
done
git checkout kernels/fused
git apply docs/experiments/ws_deep_ring_dev.patch; say ring_patch $?
export GIT_COMMIT=${GIT_COMMIT%+*}+ws_deep_ring_dev.patch
make -j16 build/cgp > $L/build_ring.log 2>&1; say build_ring $?
for s in ws_split_k_shapes ws_pair_shapes; do
  timeout -s KILL 30 build/cgp bench --zoo docs/experiments/$s.csv $B --kernel 46 --csv $L/${s}_v46_ring.csv > /dev/null 2>&1; say ${s}_v46_ring $?
done
git checkout kernels/fused; pack
