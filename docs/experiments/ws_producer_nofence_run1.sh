#!/usr/bin/env bash
# ws_producer_nofence_run1.sh - tf32-v21 and 3xtf32-v21 without the producer's per-pair fence.proxy.async (which
# compiles to MEMBAR.ALL.CTA; ws_producer_nofence_dev.patch), and with it tf32-v21's 64-channel consumers loading
# chunk k + 1's fragments while chunk k's chain runs (ws_fragment_prefetch_dev.patch), or the two consumers a
# couple of pairs apart so that each one's epilogue overlaps the other's wgmmas (ws_stagger_dev.patch), measured
# against HEAD in one call. Five builds side by side from clean copies of the tree (a warm machine's build/ and the
# copies' older file times would let make reuse stale objects): base (HEAD), nofence, both (nofence and prefetch),
# stagger (nofence and stagger; prefetch's loop does not signal the follower, so the two are not combined), probe
# (nofence and ws_timeline_dev.patch). Then, in order: the tf32-v21 benches of base, nofence, both and stagger, and
# 3xtf32-v21's of base, nofence and stagger, in turn, on ws_split_k_shapes.csv and ws_pair_shapes.csv; the roles'
# timeline with nofence on ws_split_k_shapes.csv (a process a shape); in the time left, the gpu_tensorcore tests of
# both and stagger, and `make sanitize` of stagger's versions 46 and 47. Run from the repository root with OUT set and the
# call's seconds in T: OUT=/tmp/out T=400 GIT_COMMIT=<HEAD> bash docs/experiments/ws_producer_nofence_run1.sh; one
# tarball, $OUT/n.tgz, packed after each step.
set -u
W=$(mktemp -d); L=$W/n; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/n.tgz -C $W n; }
left() { echo $(( ${T:-400} - (SECONDS - t0) )); }
HEAD_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/device.txt
declare -A PATCHES=([base]="" [nofence]="ws_producer_nofence_dev"
  [both]="ws_producer_nofence_dev ws_fragment_prefetch_dev" [stagger]="ws_producer_nofence_dev ws_stagger_dev"
  [probe]="ws_timeline_dev ws_producer_nofence_dev")
for v in base nofence both stagger probe; do
  mkdir -p $W/$v; tar cf - --exclude=./build --exclude=./.git --exclude=./.devcall . | tar xf - -C $W/$v
  (cd $W/$v && for p in ${PATCHES[$v]}; do git apply docs/experiments/$p.patch || exit 1; done &&
   GIT_COMMIT=$HEAD_COMMIT+$v make -j3 build/cgp > $L/build_$v.log 2>&1; echo "== build_$v exit $?") &
done
wait; say builds 0
bench() { # $1: variant, $2: shapes file, $3: precision, $4: kernel
  timeout -s KILL 40 $W/$1/build/cgp bench --zoo $2 --precision $3 --baselines none --reduce det --iters 20 \
    --kernel $4 --csv $L/$(basename $2 .csv)_v${4}_$1.csv > /dev/null 2>&1; say $(basename $2 .csv)_v${4}_$1 $?
}
for s in ws_split_k_shapes ws_pair_shapes; do
  for v in base nofence both stagger; do bench $v docs/experiments/$s.csv tf32 46; done
  for v in base nofence stagger; do bench $v docs/experiments/$s.csv 3xtf32 47; done
done
pack
bash docs/experiments/ws_timeline_shapes.sh $W/probe/build/cgp $L; pack
if (( $(left) > 100 )); then
  for v in both stagger; do
    (cd $W/$v && timeout -s KILL $(( $(left) - 15 )) make -j8 GIT_COMMIT=$HEAD_COMMIT+$v \
       build/tests/gpu_tensorcore > $L/test_build_$v.log 2>&1) &
  done; wait
  for v in both stagger; do
    (cd $W/$v && CGP_TEST_REQUIRE_GPU=1 timeout -s KILL $(( $(left) - 10 )) build/tests/gpu_tensorcore \
       > $L/gpu_tensorcore_$v.log 2>&1; echo "== gpu_tensorcore ($v) exit $?"); tail -2 $L/gpu_tensorcore_$v.log
  done
fi
if (( $(left) > 120 )); then
  (cd $W/stagger && CGP_SANITIZE_KERNELS="46 47" timeout -s KILL $(( $(left) - 10 )) \
     make -j16 GIT_COMMIT=$HEAD_COMMIT+stagger sanitize > $L/sanitize.log 2>&1; echo "== sanitize (46 47) exit $?")
  tail -3 $L/sanitize.log; cat $W/stagger/build/sanitize*.log > $L/sanitize_full.log 2>/dev/null
fi
gzip $L/*.log; pack; say done 0
