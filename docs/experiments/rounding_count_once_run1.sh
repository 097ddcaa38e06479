#!/usr/bin/env bash
# rounding_count_once_run1.sh - one call, three builds side by side from clean copies of the tree (a warm machine's
# build/ and the copies' older file times would let make reuse stale objects), in order of what the call is for:
#   once   HEAD + rounding_count_once_dev.patch (round_weights_once: a unit's reads in one round where the block's
#          threads allow, and the block's units counted once after its last, one fence and one atomic a block where
#          HEAD has them a unit): the tf32-v21, tf32-v15, 3xtf32-v15 and 3xtf32-v21 benches beside base's, in turn;
#   probe  HEAD + ws_timeline_dev.patch: tf32-v21's roles timed in SM cycles on every shape of ws_split_k_shapes.csv,
#          a process a shape (ws_timeline_summary_dev.py prints the means);
#   base   HEAD + ws_choose_force_dev.patch (inert unless CGP_DEV_WS_FORCE is set): the benches above, then, in the
#          time left, 3xtf32-v21's configurations forced on fresh random shapes (ws_tf32x3_sweep_run1.sh's sample and
#          order: seeds 11 and 12), the data to fit ws_cost's 3xTF32 prices.
# Then the once build's GPU tensor-core tests where time is left. Run from the repository root with OUT set and the
# call's seconds in T: OUT=/tmp/out T=575 GIT_COMMIT=<HEAD> bash docs/experiments/rounding_count_once_run1.sh; one
# tarball, $OUT/o.tgz, packed after each step. Run once, at 1e452e3, where the patch file was; it landed in 0a596c4
# (`git show 1e452e3:docs/experiments/rounding_count_once_dev.patch`), docs/perf-log.md has the measurement.
set -u
W=$(mktemp -d); L=$W/o; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/o.tgz -C $W o; }
left() { echo $(( ${T:-575} - (SECONDS - t0) )); }
HEAD_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/device.txt
declare -A PATCHES=([base]=ws_choose_force_dev [once]=rounding_count_once_dev [probe]=ws_timeline_dev)
for v in base once probe; do
  mkdir -p $W/$v; tar cf - --exclude=./build --exclude=./.git . | tar xf - -C $W/$v
  (cd $W/$v && git apply docs/experiments/${PATCHES[$v]}.patch &&
   GIT_COMMIT=$HEAD_COMMIT+$v make -j6 build/cgp > $L/build_$v.log 2>&1; echo "== build_$v exit $?") &
done
wait; say builds 0
bench() { # $1: variant, $2: shapes file, $3: precision, $4: kernel
  timeout -s KILL 40 $W/$1/build/cgp bench --zoo $2 --precision $3 --baselines none --reduce det --iters 20 \
    --kernel $4 --csv $L/$(basename $2 .csv)_v${4}_$1.csv > /dev/null 2>&1; say $(basename $2 .csv)_v${4}_$1 $?
}
for pk in tf32:46 tf32:39 3xtf32:47 3xtf32:40; do for s in ws_split_k_shapes ws_pair_shapes; do
  for v in base once; do bench $v docs/experiments/$s.csv ${pk%:*} ${pk#*:}; done
done; done
pack
bash docs/experiments/ws_timeline_shapes.sh $W/probe/build/cgp $L; pack
python3 docs/experiments/ws_split_sweep_shapes.py 11 48 > $L/split_shapes.csv
python3 docs/experiments/ws_pair_sweep_shapes.py 12 40 > $L/pair_shapes.csv
for s in split pair; do
  forced="64:1:0 64:2:0"; [ $s = pair ] && forced="$forced 64:1:1 64:2:1"
  for f in auto $forced; do
    (( $(left) > 150 )) || break 2
    [ $f = auto ] && unset CGP_DEV_WS_FORCE || export CGP_DEV_WS_FORCE=$f
    timeout -s KILL 60 $W/base/build/cgp bench --zoo $L/${s}_shapes.csv --precision 3xtf32 --kernel 47 \
      --baselines none --reduce det --iters 20 --csv $L/x3_${s}_${f//:/_}.csv > $L/x3_${s}_${f//:/_}.log 2>&1
    say x3_${s}_$f $?
  done
done
unset CGP_DEV_WS_FORCE; pack
if (( $(left) > 100 )); then
  (cd $W/once && CGP_TEST_REQUIRE_GPU=1 timeout -s KILL $(( $(left) - 15 )) \
    make -j16 GIT_COMMIT=$HEAD_COMMIT+once build/tests/gpu_tensorcore > $L/test_build.log 2>&1 &&
   CGP_TEST_REQUIRE_GPU=1 timeout -s KILL $(( $(left) - 10 )) build/tests/gpu_tensorcore > $L/gpu_tensorcore.log 2>&1
   echo "== gpu_tensorcore (once) exit $?"); tail -3 $L/gpu_tensorcore.log
fi
gzip $L/*.log; pack; say done 0
