#!/usr/bin/env bash
# ws_split_k_run2.sh - the next run (not yet run) of ws_split_k_dev.patch, the first run's patch with its mends
# (every consumer thread arrives for its own accesses, 24 clusters of 4 on 132 SMs, the skip in a loop of its own
# and in the split kernels alone), applied on 249b85f or later: the library and every GPU test built; tf32-v21 on
# ws_split_k_shapes.csv against the library without the patch (BASE_CGP: its build/cgp, whose tf32-v21 SASS is
# 87c21a1's); gpu_fused and gpu_tensorcore; `CGP_SANITIZE_KERNELS=46 make sanitize` (memcheck, racecheck, synccheck,
# initcheck); the other gpu_* suites; max_active_clusters_dev.cu (how many clusters of 2 and 4 the GPU holds);
# ncu on four shapes: each while the time budget T (seconds) allows; where racecheck still reports hazards, first
# ws_split_k_release_dev.patch over it (release arrivals) with its sanitize, suites and bench. If the suites and
# sanitize pass and no unsplit shape is slower, the patch lands after `CGP_TEST_REQUIRE_GPU=1 make test`.
# Run from the repository root with OUT set: T=540 BASE_CGP=base/build/cgp OUT=/tmp/out bash docs/experiments/ws_split_k_run2.sh
set -u
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null)+ws_split_k_dev.patch}
T=${T:-540}
L=$OUT/m; mkdir -p $L
t0=$SECONDS
say() { echo "== $1 exit $2 ($((SECONDS - t0)) s)"; }
left() { echo $((T - SECONDS)); }
pack() { tar czf $OUT/m.tgz -C $OUT m; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
compute-sanitizer --version | tail -1
make -j16 all build/sanitize_main $(ls tests/gpu/gpu_*.c | sed 's|tests/gpu/\(.*\)\.c|build/tests/\1|') > $L/build.log 2>&1; say build $?
timeout -s KILL 30 build/cgp bench --zoo docs/experiments/ws_split_k_shapes.csv --precision tf32 --kernel 46 --baselines none --iters 20 --csv $L/split.csv > $L/split.log 2>&1; say split $?
timeout -s KILL 20 ${BASE_CGP:-base/build/cgp} bench --zoo docs/experiments/ws_split_k_shapes.csv --precision tf32 --kernel 46 --baselines none --iters 20 --csv $L/base.csv > $L/base.log 2>&1; say base $?
for t in gpu_tensorcore gpu_fused; do CGP_TEST_REQUIRE_GPU=1 timeout -s KILL 40 build/tests/$t > $L/$t.log 2>&1; say $t $?; grep -cE "^PASS" $L/$t.log; grep -E "^FAIL" $L/$t.log | head -5; gzip $L/$t.log; done
pack
CGP_SANITIZE_KERNELS=46 timeout $(( $(left) - 30 )) make sanitize > $L/sanitize.log 2>&1; say sanitize $?
tail -14 $L/sanitize.log
cp build/sanitize.log $L/sanitize_full.log 2>/dev/null; gzip $L/sanitize_full.log
pack
# racecheck still reporting hazards: release arrivals over the patch (ws_split_k_release_dev.patch, applied after it:
# every thread's arrival a release at cluster scope, no fence), its build, sanitize, suites and bench
if zcat $L/sanitize_full.log.gz 2>/dev/null | grep -qE "RACECHECK SUMMARY: [1-9]" && [ $(left) -gt 150 ]; then
  git apply docs/experiments/ws_split_k_release_dev.patch; say release_patch $?
  make -j16 build/cgp build/sanitize_main build/tests/gpu_fused build/tests/gpu_tensorcore > $L/build_release.log 2>&1; say build_release $?
  CGP_SANITIZE_KERNELS=46 timeout $(( $(left) - 60 )) make sanitize > $L/sanitize_release.log 2>&1; say sanitize_release $?
  tail -12 $L/sanitize_release.log; cp build/sanitize.log $L/sanitize_release_full.log 2>/dev/null; gzip $L/sanitize_release_full.log
  timeout -s KILL 30 build/cgp bench --zoo docs/experiments/ws_split_k_shapes.csv --precision tf32 --kernel 46 --baselines none --iters 20 --csv $L/split_release.csv > $L/split_release.log 2>&1; say split_release $?
  for t in gpu_tensorcore gpu_fused; do [ $(left) -gt 30 ] || break; CGP_TEST_REQUIRE_GPU=1 timeout -s KILL 40 build/tests/$t > $L/${t}_release.log 2>&1; say ${t}_release $?; grep -cE "^PASS" $L/${t}_release.log; grep -E "^FAIL" $L/${t}_release.log | head -5; gzip $L/${t}_release.log; done
  pack
fi
[ $(left) -gt 80 ] && { CGP_TEST_REQUIRE_GPU=1 CGP_TEST_FILTER='^gpu_(api|baselines|cli|cold_l2|coverage|gelu|large|nonfinite|random_shapes|reference|roofline|select|torch_case)' CGP=build/cgp BUILD=build timeout $(( $(left) - 25 )) tests/run_tests.sh > $L/gpu_tests.log 2>&1; say gpu_tests $?; grep -E "passed, .* failed" $L/gpu_tests.log | tail -20; grep -E "^FAIL" $L/gpu_tests.log | head; gzip $L/gpu_tests.log; pack; }
[ $(left) -gt 20 ] && { nvcc -arch=sm_90 -o $L/clusters docs/experiments/max_active_clusters_dev.cu && $L/clusters 100000 200000 225000 > $L/clusters.txt 2>&1; say clusters $?; cat $L/clusters.txt; rm -f $L/clusters; pack; }
printf 'n,cin,cout,h,w,padding,label\n8,512,512,7,7,same,a\n16,256,256,14,14,same,b\n12,768,256,7,7,valid,c\n32,128,128,28,28,same,d\n' > $L/ncu_shapes.csv
M=gpu__time_duration.sum,gpc__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_issued.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,dram__bytes_read.sum,lts__t_bytes.sum
for s in 2 3 4 5; do [ $(left) -gt 25 ] || break; sed -n "1p;${s}p" $L/ncu_shapes.csv > $L/one.csv; timeout $(( $(left) - 5 )) ncu --clock-control none --kernel-name regex:ws_wgmma -c 1 --metrics $M --csv build/cgp bench --zoo $L/one.csv --precision tf32 --kernel 46 --baselines none --iters 1 --warmup 0 > $L/ncu_$s.csv 2> $L/ncu_$s.err; say ncu_$s $?; grep -E "gpu__time|tensor_op|inst_issued|grid_size" $L/ncu_$s.csv | cut -c1-300 | sed 's/.*"\([a-z_]*__[a-z_.]*\)".*"\([^"]*\)"$/\1 \2/'; done
pack
