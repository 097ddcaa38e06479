#!/usr/bin/env bash
# ws_deep_ncu_run1.sh - where tf32-v21's launch goes on the deep layers (issue 39), at HEAD: ncu's full set with the
# source (warp stall samples per SASS line: the rounding pass's loop and wait, the cluster barriers, the producer's
# and the consumers' mbarrier waits, the exchange and the publication) of one launch on 8x512->512 7x7 and on
# 16x256->256 14x14, each exported as a source CSV; then cuDNN's convolution kernel on the same shapes (the `cudnn`
# baseline's sm90 kernels: speed of light, warp states, launch). Run from the repository root with OUT set:
# OUT=/tmp/out bash docs/experiments/ws_deep_ncu_run1.sh (about 200 s); one tarball under $OUT (the device tool
# returns at most 8 files). Set GIT_COMMIT where the machine's git HEAD is not the tree's.
set -u
W=$(mktemp -d); L=$W/n; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/n.tgz -C $W n; }
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -j16 build/cgp > $L/build.log 2>&1; say build $?
for shape in 8,512,512,7,7 16,256,256,14,14; do
  name=$(echo $shape | tr , x)
  printf 'n,cin,cout,h,w,padding\n%s,same\n' $shape > $W/$name.csv
  timeout -s KILL 100 ncu --set full --import-source yes -k regex:ws_wgmma_conv_gelu_mean -c 1 -o $L/ncu_v21_$name \
    build/cgp bench --zoo $W/$name.csv --precision tf32 --baselines none --reduce det --kernel 46 --iters 1 \
    > $L/ncu_v21_$name.log 2>&1; say ncu_v21_$name $?
  timeout -s KILL 30 ncu --import $L/ncu_v21_$name.ncu-rep --page source --csv --print-source sass \
    > $L/ncu_v21_${name}_source.csv 2> /dev/null; say source_$name $?
  timeout -s KILL 30 ncu --import $L/ncu_v21_$name.ncu-rep --page details > $L/ncu_v21_${name}_details.txt 2> /dev/null
  rm -f $L/ncu_v21_$name.ncu-rep; gzip $L/ncu_v21_${name}_*; pack
  timeout -s KILL 60 ncu -k regex:sm90_xmma -c 2 --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section LaunchStats build/cgp bench --zoo $W/$name.csv --precision tf32 \
    --baselines cudnn --reduce det --iters 1 > $L/ncu_cudnn_$name.txt 2>&1; say ncu_cudnn_$name $?
  gzip $L/ncu_cudnn_$name.txt; pack
done
