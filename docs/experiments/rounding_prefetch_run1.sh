#!/usr/bin/env bash
# rounding_prefetch_run1.sh - round_weights_once with 16-byte reads and the next unit's reads in flight while a unit
# is written (rounding_prefetch_dev.patch), measured against HEAD in one call: HEAD and the patch built side by side
# from clean copies of the tree, the tf32-v21, tf32-v15 and 3xtf32-v15 benches of the two builds in turn on
# ws_split_k_shapes.csv and ws_pair_shapes.csv, then `make sanitize` of the patch's tf32-v21 (and of tf32-v15 and
# 3xtf32-v15 where the call's T seconds, 290 unless set, leave the time). The patch's build has ws_choose_force_dev.patch
# too (inert unless CGP_DEV_WS_FORCE is set): tf32-v21 on ws_pair_shapes.csv with each configuration forced
# (BN:SPLIT:PAIRED, the file suffix), after the benches. Run from the repository root with OUT set:
# OUT=/tmp/out T=290 GIT_COMMIT=<HEAD> bash docs/experiments/rounding_prefetch_run1.sh; one tarball under $OUT.
# Each build in its own copy of the tree without build/ (a warm machine's build/ and the copies' older file times
# would let make reuse stale objects).
set -u
W=$(mktemp -d); L=$W/p; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/p.tgz -C $W p; }
left() { echo $(( ${T:-290} - (SECONDS - t0) )); }
HEAD_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in base prefetch; do
  mkdir -p $W/$v; tar cf - --exclude=./build --exclude=./.git . | tar xf - -C $W/$v
done
(cd $W/base && GIT_COMMIT=$HEAD_COMMIT make -j8 build/cgp > $L/build_base.log 2>&1; echo "== build_base exit $?") &
(cd $W/prefetch && git apply docs/experiments/rounding_prefetch_dev.patch docs/experiments/ws_choose_force_dev.patch &&
 GIT_COMMIT=$HEAD_COMMIT+prefetch make -j8 build/cgp build/sanitize_main > $L/build_prefetch.log 2>&1
 echo "== build_prefetch exit $?") &
wait; say builds 0
bench() { # $1: variant, $2: shapes, $3: precision, $4: kernel
  timeout -s KILL 30 $W/$1/build/cgp bench --zoo docs/experiments/$2.csv --precision $3 --baselines none --reduce det \
    --iters 20 --kernel $4 --csv $L/${2}_v${4}_$1.csv > /dev/null 2>&1; say ${2}_v${4}_$1 $?
}
for k in 46 39; do for s in ws_split_k_shapes ws_pair_shapes; do
  for v in base prefetch; do bench $v $s tf32 $k; done
done; done
for v in base prefetch; do bench $v ws_split_k_shapes 3xtf32 40; done
pack
for bn in 64 128; do for split in 1 2 4; do for paired in 0 1; do
  f=$bn:$split:$paired
  CGP_DEV_WS_FORCE=$f timeout -s KILL 30 $W/prefetch/build/cgp bench --zoo docs/experiments/ws_pair_shapes.csv \
    --precision tf32 --baselines none --reduce det --iters 20 --kernel 46 \
    --csv $L/ws_pair_shapes_v46_force_${bn}_${split}_${paired}.csv > /dev/null 2>&1; say force_$f $?
done; done; done
pack
kernels="46"; (( $(left) > 200 )) && kernels="46 39 40"
if (( $(left) > 40 )); then
  (cd $W/prefetch && CGP_SANITIZE_KERNELS="$kernels" timeout -s KILL $(( $(left) - 10 )) \
    make GIT_COMMIT=$HEAD_COMMIT+prefetch sanitize > $L/sanitize.log 2>&1; echo "== sanitize ($kernels) exit $?")
  tail -3 $L/sanitize.log; cat $W/prefetch/build/sanitize*.log > $L/sanitize_full.log 2>/dev/null
fi
gzip $L/*.log; pack; say done 0
