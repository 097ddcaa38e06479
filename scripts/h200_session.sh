#!/usr/bin/env bash
# h200_session.sh - one GPU session in one call: environment, build, tests, benchmarks, SASS and
# register reports. Every step's full log goes to $OUT/logs/<step>.log (packed into
# $OUT/logs.tgz at the end); the terminal gets each step's exit code and last lines.
#
#   OUT=/tmp/out scripts/h200_session.sh [step ...]
# Steps: env build ptxas test bench benchzoo versions stages grid profile tcprofile mprofile roofline zoo sweeps layout
#        charts results select readme sanitize torch torchfull torchzoo train pycall sass (torchzoo: scripts/torch_compare.py
#        --zoo into zoo.csv, zoo.md, torch_compare_zoo.csv; train: scripts/torch_compare.py --train into train.csv; pycall: scripts/py_call_overhead.py's table into
#        py_call_overhead.md; benchzoo: `cgp bench --zoo --precision all` into bench_zoo.csv/.json/.md, warm and with
#        --cold-l2; select: `cgp select` of 400 random shapes and the zoo into selection.csv, selection_candidates.csv;
#        readme: scripts/results_readme.py's README section from zoo.csv into README_results.md)
# build: `make all`, after removing a build/ that other sources made (build/.sources; a warm machine keeps build/).
# (default: env build ptxas test bench versions sass; charts = roofline zoo sweeps layout, the charts of
# results/h200/ and their text-extent check). Results are packed into $OUT/results.tgz.
# results = bench torchzoo train select roofline zoo layout readme, in that order: every committed table and chart
#   of results/h200/ from one run, and nothing else. What it writes into $OUT/results/ is exactly the list of
#   files at the top of results/h200/ (besides README.md and history/): bench_default.{csv,json,md}, zoo.csv, zoo.md,
#   torch_compare_zoo.csv, train.csv, selection.csv, selection_candidates.csv, roofline.{csv,svg}, roofline_zoo.{csv,svg},
#   speedup_zoo.svg, README_results.md. Run at the final commit
#   (.commit written), e.g. `OUT=/tmp/out/r scripts/h200_session.sh env build test results`; then the previous
#   top-level files go to results/h200/history/ with their commit in the name, results.tgz's results/* replace them,
#   and `python3 scripts/results_readme.py --update README.md` puts README_results.md's section into README.md.
# Environment: VERSIONS (fp32), TF32_VERSIONS, TF32X3_VERSIONS (the versions step), TC_VERSIONS (stages,
# tcprofile), PROFILE_KERNELS (profile), SANITIZE_TIMEOUT, CGP_SANITIZE_KERNELS (sanitize: these versions
# only), TORCH_TIMEOUT.
set -u
OUT=${OUT:-/tmp/cgp-session}
LOGS=$OUT/logs
RES=$OUT/results
mkdir -p "$LOGS" "$RES"
JOBS=$(nproc 2>/dev/null || echo 8)
# a tree made by `git archive` has no .git: its commit comes from .commit
[ -f .commit ] && export GIT_COMMIT=$(cat .commit)

step() { # name command...
    local name=$1; shift
    local start=$SECONDS
    echo "=== $name: $*"
    ( "$@" ) >"$LOGS/$name.log" 2>&1
    local rc=$?
    echo "--- $name: exit $rc, $((SECONDS - start)) s"
    tail -n "${TAIL:-12}" "$LOGS/$name.log"
    return 0
}

env_info() {
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
    nvcc --version | tail -2
    for t in ncu compute-sanitizer cuobjdump nvdisasm python3 clang; do printf '%s: %s\n' "$t" "$(command -v $t || echo missing)"; done
    ls /usr/include/x86_64-linux-gnu/cudnn*.h /usr/local/cuda/include/cudnn.h 2>/dev/null | head -3
    ldconfig -p | grep -i cudnn | head -5
    find / -name 'libcudnn.so*' -not -path '*/proc/*' 2>/dev/null | head -5
    python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())' 2>&1 | tail -1
}

# build/ is kept only where it was made from these very sources: a warm machine keeps build/ from its last call, and
# the tree copied onto it keeps its files' older times, so make would take another tree's objects as up to date
# (build/.sources: a digest of the files make reads, written after each build step)
sources_digest() {
    find Makefile mk include host kernels tests python -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
        -o -name '*.cuh' -o -name '*.mk' -o -name Makefile -o -name '*.csv' -o -name '*.py' -o -name '*.sh' \) \
        -print0 2>/dev/null | sort -z | xargs -0 sha1sum | sha1sum | cut -c1-40
}
fresh_build() {
    local digest
    digest=$(sources_digest)
    if [ -d build ] && [ "$(cat build/.sources 2>/dev/null)" != "$digest" ]; then
        echo "build/ was not made from these sources (build/.sources differs or is missing): removing it"
        rm -rf build
    fi
    make -j"$JOBS" all && echo "$digest" > build/.sources
}

steps=()
for s in "$@"; do
    case $s in
    charts) steps+=(roofline zoo sweeps layout) ;;
    results) steps+=(bench torchzoo train select roofline zoo layout readme) ;;
    *) steps+=("$s") ;;
    esac
done
[ ${#steps[@]} -eq 0 ] && steps=(env build ptxas test bench versions sass)
for s in "${steps[@]}"; do
    case $s in
    env) step env env_info ;;
    build) step build fresh_build ;;
    ptxas) step ptxas make ptxas ;;
    test) TAIL=40 step test env CGP_TEST_REQUIRE_GPU=1 make -j"$JOBS" test ;;
    bench) TAIL=30 step bench build/cgp bench --precision all --csv "$RES/bench_default.csv" \
               --json "$RES/bench_default.json" --markdown "$RES/bench_default.md" ;;
    versions) TAIL=40 step versions bash -c 'for k in ${VERSIONS:-1 7 9 10 31 38}; do
               build/cgp bench --baselines none --kernel $k --iters 50 --csv '"$RES"'/versions_fp32_v$k.csv | grep -E "^fused|kernel fp32"; done
             for k in ${TF32_VERSIONS:-16 18 19 20 32 36 39 41 42 46}; do build/cgp bench --baselines none --precision tf32 --kernel $k --iters 50 \
               --csv '"$RES"'/versions_tf32_v$k.csv | grep -E "^fused|kernel"; done
             for k in ${TF32X3_VERSIONS:-27 28 29 30 33 35 37 40 47}; do build/cgp bench --baselines none --precision 3xtf32 --kernel $k --iters 50 \
               --csv '"$RES"'/versions_3xtf32_v$k.csv | grep -E "^fused|kernel"; done' ;;
    benchzoo) TAIL=30 step benchzoo bash -c 'build/cgp bench --zoo --precision all --baselines cudnn --csv '"$RES"'/bench_zoo.csv \
               --json '"$RES"'/bench_zoo.json --markdown '"$RES"'/bench_zoo.md && cp '"$RES"'/bench_zoo.csv build/zoo.csv
             build/cgp bench --zoo --precision all --baselines none --cold-l2 --csv '"$RES"'/bench_zoo_cold.csv | tail -n 8' ;;
    stages) TAIL=40 step stages bash -c 'for k in ${TC_VERSIONS:-16 18 27 28}; do
               prec=tf32; [ $k -gt 20 ] && prec=3xtf32
               build/cgp bench --baselines none --precision $prec --reduce det --kernel $k --stages --iters 50 \
                 --csv '"$RES"'/stages_v$k.csv | grep -E "^fused|^stages|^stage split"; done' ;;
    grid) TAIL=10 step grid bash -c 'for pad in valid same; do for n in 1 8 32 128; do
               build/cgp bench --baselines none --reduce det --n $n --padding $pad --sweep h=64,128,256,512 \
                 --iters 20 --csv '"$RES"'/grid_${pad}_n$n.csv | grep -E "^problem|^fused fp32"; done; done' ;;
    sanitize) TAIL=25 step sanitize timeout ${SANITIZE_TIMEOUT:-300} make sanitize
              [ -f build/sanitize.log ] && cp build/sanitize.log "$RES/sanitize.log" ;;
    mprofile) TAIL=40 step mprofile bash -c 'make profile && cp build/profile/metrics.txt '"$RES"'/profile_metrics.txt' ;;
    torchfull) TAIL=40 step torchfull env PYTHONUNBUFFERED=1 timeout ${TORCH_TIMEOUT:-420} python3 scripts/torch_compare.py \
               --csv "$RES/torch_compare_full.csv" ;;
    torchzoo) TAIL=30 step torchzoo env PYTHONUNBUFFERED=1 timeout ${TORCH_TIMEOUT:-540} python3 scripts/torch_compare.py \
               --zoo --iters 20 --warmup 3 --csv "$RES/torch_compare_zoo.csv" --zoo-csv "$RES/zoo.csv" \
               --zoo-md "$RES/zoo.md" ;;
    train) TAIL=30 step train env PYTHONUNBUFFERED=1 timeout ${TORCH_TIMEOUT:-540} python3 scripts/torch_compare.py \
               --train --train-csv "$RES/train.csv" ;;
    pycall) TAIL=30 step pycall bash -c 'timeout 300 python3 scripts/py_call_overhead.py --lib build/libcgp.so \
               > '"$RES"'/py_call_overhead.md' ;;
    torch) TAIL=40 step torch env PYTHONUNBUFFERED=1 timeout 300 python3 scripts/torch_compare.py --no-max-autotune \
               --csv "$RES/torch_compare.csv" ;;
    profile) TAIL=60 step profile bash -c 'for k in ${PROFILE_KERNELS:-4}; do ncu --clock-control none \
               -k regex:fused_fp32 -c 1 --section SpeedOfLight --section SchedulerStats --section WarpStateStats \
               --section Occupancy --section InstructionStats --section LaunchStats \
               --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio \
               build/cgp bench --baselines none --reduce det --kernel $k --iters 1 --warmup 0; done' ;;
    tcprofile) TAIL=60 step tcprofile bash -c 'for k in ${TC_VERSIONS:-16 18 27 28}; do prec=tf32; [ $k -gt 20 ] && prec=3xtf32
               ncu --clock-control none -k "regex:tc_conv|wgmma_conv" -c 1 --section SpeedOfLight --section SchedulerStats \
               --section WarpStateStats --section InstructionStats \
               --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio \
               build/cgp bench --baselines none --precision $prec --reduce det --kernel $k --iters 1 --warmup 0; done' ;;
    roofline) TAIL=40 step roofline build/cgp roofline --csv "$RES/roofline.csv" --svg "$RES/roofline.svg" ;;
    zoo) TAIL=40 step zoo build/cgp roofline --zoo --iters 20 --csv "$RES/roofline_zoo.csv" \
               --svg "$RES/roofline_zoo.svg" --speedup-svg "$RES/speedup_zoo.svg" ;;
    sweeps) TAIL=20 step sweeps bash -c "build/cgp bench --baselines none --precision all --reduce det \
               --sweep n=1,2,4,8,16,32,64,128,256,512 --csv $RES/sweep_n.csv --iters 20 &&
             build/cgp bench --baselines none --precision all --reduce det \
               --sweep h=16,32,64,128,256,512,1024 --csv $RES/sweep_h.csv --iters 20 &&
             build/cgp plot --csv $RES/sweep_n.csv --svg $RES/sweep_n.svg &&
             build/cgp plot --csv $RES/sweep_h.csv --svg $RES/sweep_h.svg" ;;
    select) TAIL=30 step select build/cgp select --random 400 --seed 20261204 --zoo host/bench/zoo.csv --precision all \
               --csv "$RES/selection.csv" --candidates-csv "$RES/selection_candidates.csv" ;;
    readme) TAIL=40 step readme python3 scripts/results_readme.py --zoo-csv "$RES/zoo.csv" --out "$RES/README_results.md" ;;
    layout) step layout env CGP_RESULTS_DIR="$RES" bash -c 'make build/tests/cpu_svg_layout >/dev/null &&
               build/tests/cpu_svg_layout | grep -E "committed|^FAIL"' ;;
    sass) step sass bash -c 'for o in build/obj/kernels/fused/*.cu.o build/obj/kernels/fused/history/*.cu.o; do cuobjdump --dump-sass "$o" | python3 scripts/sass_loops.py; done' ;;
    *) echo "unknown step $s" ;;
    esac
done
tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$LOGS"
tar -czf "$OUT/results.tgz" -C "$OUT" results && rm -rf "$RES"
