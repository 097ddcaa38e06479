#!/usr/bin/env bash
# ws_pair_run2.sh - the second run of tf32-v21's two images a tile: why a paired block is slower than a one-image
# block with the same chunks (run 1: 1.2-1.45x on equal work a block), and ws_choose judged on a second sample.
# ws_choose_force_dev.patch applied from the start (a dev build: CGP_DEV_WS_FORCE=BN:SPLIT:PAIRED forces tf32-v21's
# configuration); every configuration forced on ws_pair_shapes.csv and on a second random sample
# (ws_pair_sweep_shapes.py seed 10); ncu of the paired and one-image kernels (sections and the stall
# samples by source line) on the zoo's 8x512->512 7x7, where run 1's pick (two images, 128 channels, K split 4) was slower than
# the one-image 64-channel split 2 of the runs before.
# Run from the repository root with OUT set: OUT=/tmp/out bash docs/experiments/ws_pair_run2.sh (about 150 s)
set -u
L=$OUT/q; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/q.tgz -C $OUT q; }
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}+ws_choose_force_dev.patch
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git apply docs/experiments/ws_choose_force_dev.patch; say force_patch $?
make -j16 build/cgp > $L/build.log 2>&1; say build $?
python3 docs/experiments/ws_pair_sweep_shapes.py 10 40 > $L/sweep_shapes.csv
B="--precision tf32 --kernel 46 --baselines none --reduce det --iters 20"
for f in auto 128:1:1 128:2:1 128:4:1 64:1:1 64:2:1 128:1:0 128:2:0 128:4:0 64:1:0 64:2:0; do
  [ $f = auto ] && unset CGP_DEV_WS_FORCE || export CGP_DEV_WS_FORCE=$f
  timeout -s KILL 60 build/cgp bench --zoo $L/sweep_shapes.csv $B --csv $L/sweep_${f//:/_}.csv > $L/sweep_${f//:/_}.log 2>&1; say sweep_$f $?
  timeout -s KILL 60 build/cgp bench --zoo docs/experiments/ws_pair_shapes.csv $B --csv $L/fixed_${f//:/_}.csv > $L/fixed_${f//:/_}.log 2>&1; say fixed_$f $?
done
pack
S="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section LaunchStats --section SourceCounters"
for c in "8 512 512 7 7 same 64:2:0" "8 512 512 7 7 same 128:4:1"; do
  [ $((580 - SECONDS)) -gt 30 ] || break
  set -- $c; tag=${1}x${2}x${3}x${4}x${5}_${7//:/_}
  CGP_DEV_WS_FORCE=$7 timeout 25 ncu --clock-control none -k regex:ws_wgmma -s 2 -c 1 $S build/cgp bench --n $1 --cin $2 --cout $3 --h $4 --w $5 --padding $6 --precision tf32 --kernel 46 --baselines none --reduce det --iters 2 --warmup 1 > $L/ncu_$tag.txt 2>&1; say ncu_$tag $?
  gzip $L/ncu_$tag.txt; pack
done
