#!/usr/bin/env bash
# ws_tf32x3_sweep_run1.sh - the data to fit ws_cost's 3xTF32 prices (not yet run): ws_choose_force_dev.patch applied
# to a clean copy of the tree, built, then 3xtf32-v21's configurations (64 channels; K whole or split over 2; one
# image a tile or two) forced, the unforced choice (`auto`) first: K whole and split, one image a tile, on 48 random
# shapes of the split's domain (ws_split_sweep_shapes.py, seed 11); all four on 40 shapes where two images fit a
# tile (ws_pair_sweep_shapes.py, seed 12). A configuration ws_cost refuses falls back to the unforced choice (the
# row's detail names the path that ran). Fresh seeds: the tf32 sweeps used 7 and 9. Run from the repository root
# with OUT set and the call's seconds in T:
# OUT=/tmp/out T=400 GIT_COMMIT=<HEAD> bash docs/experiments/ws_tf32x3_sweep_run1.sh; one file, $OUT/x3_sweep.tgz.
set -u
t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}+ws_choose_force
L=$OUT/x3_sweep; mkdir -p $L
pack() { tar czf $OUT/x3_sweep.tgz -C $OUT x3_sweep; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
W=$(mktemp -d)
tar cf - --exclude=./build --exclude=./.git . | tar xf - -C $W
cd $W && git apply docs/experiments/ws_choose_force_dev.patch || exit 1
make -j16 build/cgp > $L/build.log 2>&1; say build $?
python3 docs/experiments/ws_split_sweep_shapes.py 11 48 > $L/split_shapes.csv
python3 docs/experiments/ws_pair_sweep_shapes.py 12 40 > $L/pair_shapes.csv
B="--precision 3xtf32 --kernel 47 --baselines none --reduce det --iters 20"
for s in split pair; do
  forced="64:1:0 64:2:0"; [ $s = pair ] && forced="$forced 64:1:1 64:2:1"
  for f in auto $forced; do
    [ $(( ${T:-400} - (SECONDS - t0) )) -gt 30 ] || break 2
    [ $f = auto ] && unset CGP_DEV_WS_FORCE || export CGP_DEV_WS_FORCE=$f
    timeout -s KILL 60 build/cgp bench --zoo $L/${s}_shapes.csv $B --csv $L/${s}_${f//:/_}.csv > $L/${s}_${f//:/_}.log 2>&1
    say ${s}_$f $?
  done
done
unset CGP_DEV_WS_FORCE
gzip $L/*.log; pack
