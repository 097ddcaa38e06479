#!/usr/bin/env bash
# ws_pair_run1.sh - the first run of tf32-v21's two images a tile (kWsPairedImages): the build,
# `CGP_SANITIZE_KERNELS=46 make sanitize`, `CGP_TEST_REQUIRE_GPU=1 make test`, tf32-v21 beside cuDNN on
# ws_pair_shapes.csv (GPU time by graph replay; cuDNN's convolution alone among the rows), then
# ws_choose_force_dev.patch applied and every (channels, split, images a tile) of ws_choose forced on 40 random
# shapes where two images fit a tile (ws_pair_sweep_shapes.py, seed 9), the unforced choice (`auto`) last; then ncu
# of every kernel of the zoo's 8x512->512 7x7 with cuDNN's rows, and of tf32-v21's launch there.
# Run from the repository root with OUT set: OUT=/tmp/out bash docs/experiments/ws_pair_run1.sh (about 480 s)
set -u
L=$OUT/p; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/p.tgz -C $OUT p; }
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -j16 all build/sanitize_main > $L/build.log 2>&1; say build $?
CGP_SANITIZE_KERNELS=46 timeout 120 make sanitize > $L/sanitize.log 2>&1; say sanitize $?
grep -E "SUMMARY" $L/sanitize.log | sed 's/.*=========//' | sort | uniq -c; cp build/sanitize.log $L/sanitize_full.log; gzip $L/sanitize_full.log
timeout -s KILL 60 build/cgp bench --zoo docs/experiments/ws_pair_shapes.csv --precision tf32 --kernel 46 --baselines cudnn --reduce det --iters 20 --csv $L/pair_cudnn.csv > $L/pair_cudnn.log 2>&1; say pair_cudnn $?
pack
CGP_TEST_REQUIRE_GPU=1 timeout 330 make -j16 test > $L/make_test.log 2>&1; say make_test $?
grep -E "passed, .* failed" $L/make_test.log | tail -24; grep -E "^FAIL" $L/make_test.log | head; gzip $L/make_test.log; pack
git apply docs/experiments/ws_choose_force_dev.patch; say force_patch $?
make -j16 build/cgp > $L/build_force.log 2>&1; say build_force $?
python3 docs/experiments/ws_pair_sweep_shapes.py 9 40 > $L/sweep_shapes.csv
B="--precision tf32 --kernel 46 --baselines none --reduce det --iters 20"
for f in auto 128:1:1 128:2:1 128:4:1 64:1:1 64:2:1 128:1:0 128:2:0 128:4:0 64:1:0 64:2:0; do
  [ $((540 - SECONDS)) -gt 20 ] || break
  [ $f = auto ] && unset CGP_DEV_WS_FORCE || export CGP_DEV_WS_FORCE=$f
  timeout -s KILL 60 build/cgp bench --zoo $L/sweep_shapes.csv $B --csv $L/sweep_${f//:/_}.csv > $L/sweep_${f//:/_}.log 2>&1; say sweep_$f $?
  pack
done
unset CGP_DEV_WS_FORCE
M=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_issued.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,dram__bytes_read.sum
if [ $((585 - SECONDS)) -gt 40 ]; then
  timeout 35 ncu --clock-control none -c 300 --metrics $M --csv build/cgp bench --n 8 --cin 512 --cout 512 --h 7 --w 7 --padding same --precision tf32 --kernel 46 --baselines cudnn --reduce det --iters 2 --warmup 1 > $L/ncu_all_8x512x512x7x7.csv 2> $L/ncu_all.err; say ncu_all $?
  pack
fi
if [ $((585 - SECONDS)) -gt 25 ]; then
  timeout 20 ncu --clock-control none -k regex:ws_wgmma -s 2 -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section LaunchStats build/cgp bench --n 8 --cin 512 --cout 512 --h 7 --w 7 --padding same --precision tf32 --kernel 46 --baselines none --reduce det --iters 2 --warmup 1 > $L/ncu_v21_8x512x512x7x7.txt 2>&1; say ncu_v21 $?
  pack
fi
