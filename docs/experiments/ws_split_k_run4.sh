#!/usr/bin/env bash
# ws_split_k_run4.sh - the next run (not yet run): ws_choose's pick judged out of sample, on the sweep's second
# sample (ws_split_sweep_shapes.py seed 8: 48 random shapes of the split's domain, every (channels, split) pair
# forced by ws_choose_force_dev.patch, then unforced), and what bounds tf32-v21 where cuDNN's convolution alone still
# wins (16x256->256 14x14 and 8x512->512 7x7, same): ncu's time, tensor pipe, issue and L2 bytes of every kernel of a
# `cgp bench --baselines cudnn` run (cuDNN's conv kernel among them), and the full sections of tf32-v21's launch.
# Run from the repository root with OUT set: OUT=/tmp/out bash docs/experiments/ws_split_k_run4.sh (about 150 s)
set -u
L=$OUT/n; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}+ws_choose_force_dev.patch
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git apply docs/experiments/ws_choose_force_dev.patch; say force_patch $?
make -j16 build/cgp > $L/build.log 2>&1; say build $?
B="--precision tf32 --kernel 46 --baselines none --reduce det --iters 20"
python3 docs/experiments/ws_split_sweep_shapes.py 8 48 > $L/sweep_shapes.csv
for f in 64:1 64:2 128:1 128:2 128:4 auto; do
  [ $f = auto ] && unset CGP_DEV_WS_FORCE || export CGP_DEV_WS_FORCE=$f
  timeout -s KILL 60 build/cgp bench --zoo $L/sweep_shapes.csv $B --csv $L/sweep_${f/:/_}.csv > $L/sweep_${f/:/_}.log 2>&1; say sweep_$f $?
done
unset CGP_DEV_WS_FORCE; pack
M=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_issued.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,dram__bytes_read.sum
for s in "16 256 256 14 14" "8 512 512 7 7"; do
  set -- $s; tag=${1}x${2}x${3}x${4}x${5}
  timeout 40 ncu --clock-control none -c 300 --metrics $M --csv build/cgp bench --n $1 --cin $2 --cout $3 --h $4 --w $5 --padding same --precision tf32 --kernel 46 --baselines cudnn --reduce det --iters 2 --warmup 1 > $L/ncu_all_$tag.csv 2> $L/ncu_all_$tag.err; say ncu_all_$tag $?
  timeout 30 ncu --clock-control none -k regex:ws_wgmma -s 2 -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section LaunchStats build/cgp bench --n $1 --cin $2 --cout $3 --h $4 --w $5 --padding same --precision tf32 --kernel 46 --baselines none --reduce det --iters 2 --warmup 1 > $L/ncu_v21_$tag.txt 2>&1; say ncu_v21_$tag $?
  pack
done
