#!/usr/bin/env bash
# profile.sh - `make profile`: Nsight Compute (ncu) on the fused kernels of one `cgp bench` run,
# printing the few metrics that say where a fused kernel stands (docs/roofline.md, "Profiling"):
# duration, SM clock, DRAM bytes read and written, FFMA executed and FP32-pipe utilization,
# tensor-pipe utilization, issue-slot utilization, achieved occupancy, registers per thread.
#
#   scripts/profile.sh CGP OUT_DIR [cgp bench arguments...]
#   make profile [BUILD=build] [PROFILE_ARGS='...'] [PROFILE_REGEX='regex']
#
# Clocks are left as the driver runs them (--clock-control none), as in the timed runs. Only
# kernels whose function name matches PROFILE_REGEX (default 'fused_|tc_conv': every fused
# kernel version) are profiled. Writes OUT_DIR/fused.ncu-rep (open it with ncu-ui or
# `ncu --import`), OUT_DIR/ncu.log (the run), OUT_DIR/metrics.txt (what is printed) and
# OUT_DIR/metrics.csv (one row per metric and launch).
# Environment: NCU=path/to/ncu (else ncu on PATH, $CUDA_HOME/bin, /usr/local/cuda/bin,
# /opt/nvidia/nsight-compute/*).
# Exit code: 0 when profiled, and also when it cannot profile here (no ncu, no GPU, performance
# counters not permitted: it says which, with ncu's own message); non-zero when the run failed.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 CGP OUT_DIR [cgp bench arguments...]" >&2
    exit 2
fi
cgp=$1 out=$2
shift 2
kernels=${PROFILE_REGEX:-'fused_|tc_conv'}

metrics=(
    gpu__time_duration.sum                                             # duration
    gpc__cycles_elapsed.avg.per_second                                 # SM clock during the run
    dram__bytes_read.sum                                               # DRAM bytes read
    dram__bytes_write.sum                                              # DRAM bytes written
    sm__sass_thread_inst_executed_op_ffma_pred_on.sum                  # FFMA executed (thread level)
    sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active        # FP32 (FMA) pipe utilization
    sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active # tensor pipe utilization
    sm__inst_issued.avg.pct_of_peak_sustained_active                   # issue slot utilization
    sm__warps_active.avg.pct_of_peak_sustained_active                  # achieved occupancy
    launch__registers_per_thread
    launch__grid_size
    launch__block_size
)
metric_list=$(IFS=,; echo "${metrics[*]}")

find_ncu() {
    if [ -n "${NCU:-}" ]; then
        [ -x "$NCU" ] && { echo "$NCU"; return; }
        echo "profile: NCU=$NCU is not an executable" >&2
        return 1
    fi
    command -v ncu && return
    local c
    for c in "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" /usr/local/cuda/bin/ncu; do
        [ -x "$c" ] && { echo "$c"; return; }
    done
    c=$(ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/nsight-compute-*/ncu 2>/dev/null | sort -V | tail -n 1)
    [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return; }
    return 1
}

if ! ncu=$(find_ncu); then
    echo "profile: SKIPPED: ncu (Nsight Compute) not found on PATH, in \$CUDA_HOME/bin, /usr/local/cuda/bin or"
    echo "         /opt/nvidia/nsight-compute/*; install Nsight Compute or set NCU=/path/to/ncu"
    exit 0
fi
if [ ! -x "$cgp" ]; then
    echo "profile: $cgp is not built (make $cgp)" >&2
    exit 1
fi
mkdir -p "$out" || exit 1
log=$out/ncu.log
echo "profile: $("$ncu" --version 2>&1 | tail -n 1)"
echo "profile: $ncu --clock-control none --kernel-name regex:'$kernels' $cgp bench $*"
"$ncu" --clock-control none --kernel-name "regex:$kernels" --metrics "$metric_list" \
    --export "$out/fused" --force-overwrite "$cgp" bench "$@" >"$log" 2>&1
rc=$?

errors=$(grep -E '^==ERROR==' "$log")
if grep -qE 'ERR_NVGPUCTRPERM|permission to access NVIDIA GPU Performance Counters|driver resource was unavailable' "$log"; then
    echo "profile: SKIPPED: the GPU's performance counters are not available to this user or container. ncu says:"
    echo "$errors" | sed 's/^/    /'
    echo "         (the driver must allow profiling: NVreg_RestrictProfilingToAdminUsers=0, or run as root)"
    exit 0
fi
if grep -q 'no CUDA device' "$log"; then
    echo "profile: SKIPPED: cgp found no CUDA device:"
    grep 'no CUDA device' "$log" | sed 's/^/    /'
    exit 0
fi
if grep -qE 'Failed to find metric|metric.*(not found|invalid)' "$log"; then
    echo "profile: FAILED: ncu does not know a requested metric on this GPU:" >&2
    echo "$errors" | sed 's/^/    /' >&2
    exit 1
fi
if [ "$rc" -ne 0 ] || [ -n "$errors" ]; then
    echo "profile: FAILED: ncu or the bench run exited with code $rc; the end of $log:" >&2
    tail -n 30 "$log" | sed 's/^/    /' >&2
    exit $((rc ? rc : 1))
fi
if [ ! -f "$out/fused.ncu-rep" ] || grep -q 'No kernels were profiled' "$log"; then
    echo "profile: FAILED: no kernel matched regex '$kernels' (set PROFILE_REGEX); the end of $log:" >&2
    tail -n 10 "$log" | sed 's/^/    /' >&2
    exit 1
fi
"$ncu" --import "$out/fused.ncu-rep" --page details >"$out/metrics.txt" 2>&1 &&
    "$ncu" --import "$out/fused.ncu-rep" --page raw --csv >"$out/metrics.csv" 2>&1
rc=$?
cat "$out/metrics.txt"
if [ "$rc" -ne 0 ]; then
    echo "profile: FAILED: reading $out/fused.ncu-rep back failed (code $rc)" >&2
    exit "$rc"
fi
echo "profile: wrote $out/fused.ncu-rep, $out/metrics.txt, $out/metrics.csv and $log"
