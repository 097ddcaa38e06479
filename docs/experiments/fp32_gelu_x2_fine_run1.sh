#!/usr/bin/env bash
# fp32_gelu_x2_fine_run1.sh - one call, two builds side by side from clean copies of the tree:
#   base  HEAD;
#   gelu  HEAD + fp32_gelu_x2_fine_dev.patch: every fp32 version (fp32-v1, v7, v9, v10, v11, v12) evaluates 2 GELU
#         by gelu_x2_fine (11 instructions, one MUFU; 3xTF32's since 3xtf32-v7) and halves the sums, where HEAD has
#         gelu_fast (16, two MUFU); fp32-v9's chunk loop 3075 -> 2754 instructions (local SASS).
# Then, in turn, the public zoo in fp32 (`cgp bench --zoo --precision fp32 --baselines none --reduce det`, the
# heuristic's pick) by base, gelu, base, gelu (two rounds, for the noise); the default problem's fp32 rows in both
# paddings; in the time left, the gelu build's GPU tests of the fp32 versions (gpu_fused, gpu_random_shapes). Run
# from the repository root with OUT set and the call's seconds in T:
#   OUT=/tmp/out T=400 GIT_COMMIT=<HEAD> bash docs/experiments/fp32_gelu_x2_fine_run1.sh
# one tarball, $OUT/g.tgz, packed after each step.
set -u
W=$(mktemp -d); L=$W/g; mkdir -p $L; t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
pack() { tar czf $OUT/g.tgz -C $W g; }
left() { echo $(( ${T:-400} - (SECONDS - t0) )); }
HEAD_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD)}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/device.txt
declare -A PATCHES=([base]="" [gelu]="fp32_gelu_x2_fine_dev")
for v in base gelu; do
  mkdir -p $W/$v; tar cf - --exclude=./build --exclude=./.git --exclude=./.devcall . | tar xf - -C $W/$v
  (cd $W/$v && for p in ${PATCHES[$v]}; do git apply docs/experiments/$p.patch || exit 1; done &&
   GIT_COMMIT=$HEAD_COMMIT+$v make -j8 build/cgp > $L/build_$v.log 2>&1; echo "== build_$v exit $?") &
done
wait; say builds 0
for round in 1 2; do
  for v in base gelu; do
    timeout -s KILL 60 $W/$v/build/cgp bench --zoo --precision fp32 --baselines none --reduce det --iters 20 \
      --csv $L/zoo_fp32_${v}_$round.csv > /dev/null 2>&1; say zoo_fp32_${v}_$round $?
  done
done
for v in base gelu; do for pad in valid same; do
  timeout -s KILL 30 $W/$v/build/cgp bench --precision fp32 --padding $pad --baselines none --reduce all --iters 30 \
    --csv $L/default_fp32_${pad}_$v.csv > /dev/null 2>&1; say default_fp32_${pad}_$v $?
done; done
pack
if (( $(left) > 90 )); then
  (cd $W/gelu && timeout -s KILL $(( $(left) - 20 )) make -j16 GIT_COMMIT=$HEAD_COMMIT+gelu build/tests/gpu_fused \
     build/tests/gpu_random_shapes > $L/test_build.log 2>&1; echo "== test build exit $?")
  for t in gpu_fused gpu_random_shapes; do
    (cd $W/gelu && CGP_TEST_REQUIRE_GPU=1 timeout -s KILL $(( $(left) - 5 )) build/tests/$t > $L/$t.log 2>&1
     echo "== $t exit $?"); tail -2 $L/$t.log
  done
fi
gzip $L/*.log; pack; say done 0
