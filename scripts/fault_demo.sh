#!/usr/bin/env bash
# fault_demo.sh - shows on a GPU that guards of the test suite bite (issue 22, docs/testing.md "What each guard
# catches"): each fault goes into a scratch copy of the working tree (the tree itself is never touched), the test
# programs that must catch it are built there (from a copy of the build directory, so only what the fault touches
# is rebuilt) and run with CGP_TEST_REQUIRE_GPU=1, and their failing cases that name the fault are counted.
#   fallback  tf32-v8 (the one wgmma version of 16-row tiles) is configured with its cp.async kernel where it stages
#             by TMA, while its configuration's path still says "tma": the launch runs a kernel other than the one
#             its path names, and gpu_tensorcore's recorded-path check must fail
#   flipref   the fp64 GPU reference reads every filter flipped (tap 8 - t; the CPU reference and the fp32 unfused
#             baseline, which shares conv3x3_point.cuh, keep theirs): gpu_reference (GPU vs CPU reference) and
#             gpu_torch_case (GPU reference vs PyTorch) must fail
# Per fault one line: "guard bites: <fault>: <n> failing cases", "GUARD DID NOT BITE: <fault>", or "NOT RUN:
# <fault>: <why>" (a test program that ran no case, e.g. without a GPU). Exit 0 when every fault asked for bit.
#   bash scripts/fault_demo.sh [--build-only] [FAULT...]    every fault by default; BUILD=dir (default build) is the
#                                                           build to start from, FAULT_DEMO_LOGS=dir keeps the logs
#   --build-only   apply the faults and build the programs, run nothing (no GPU needed)
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
if [ "${1:-}" = --build-only ]; then
    build_only=1
    shift
fi
faults=("$@")
[ ${#faults[@]} -gt 0 ] || faults=(fallback flipref)
build=${BUILD:-build}
jobs=$(nproc 2>/dev/null || echo 2)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cgp_fault_demo.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# A fault: the file it edits, the text it replaces (a sed pattern) and by what (a sed replacement, to which the
# marker comment is appended: the edited file must then hold it), the test programs that must catch it, and the
# pattern (grep -E) of the FAIL lines that name it
fault_spec() {
    case $1 in
    fallback)
        file=kernels/fused/wgmma_conv.cuh
        from='    configured(c, reinterpret_cast<const void \*>(&wgmma_conv_gelu_mean<C, CGP_STAGE_ALL, kStaging>),'
        to='    configured(c, reinterpret_cast<const void *>(\&wgmma_conv_gelu_mean<C, CGP_STAGE_ALL, C::rows == 16 ? (int)kByCpAsync : kStaging>),'
        programs=(gpu_tensorcore)
        caught='recorded path "cp\.async", its configuration says "tma"' ;;
    flipref)
        file=kernels/bench/conv3x3_point.cuh
        from='(T)wc\[ci \* 9 + ky \* 3 + kx\]'
        to='(T)wc[ci * 9 + (sizeof(T) == sizeof(double) ? 8 - (ky * 3 + kx) : ky * 3 + kx)]'
        programs=(gpu_reference gpu_torch_case)
        caught='^FAIL (gpu reference vs cpu|torch case: GPU reference vs PyTorch)' ;;
    *)
        echo "fault_demo: unknown fault '$1' (fallback, flipref)" >&2
        exit 2 ;;
    esac
    marker="fault_demo: $1"
}

# The working tree (tracked and untracked files git does not ignore) and the build directory, mtimes kept, into $1
copy_tree() {
    mkdir -p "$1"
    git ls-files -z --cached --others --exclude-standard |
        tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null | tar -C "$1" -xf -
    if [ -d "$build" ]; then
        mkdir -p "$1/build"
        tar -C "$build" -cf - . | tar -C "$1/build" -xf -
    fi
}

status=0
for fault in "${faults[@]}"; do
    fault_spec "$fault"
    tree=$scratch/$fault
    copy_tree "$tree"
    sed -i "s|$from|$to /* $marker */|" "$tree/$file"
    if ! grep -qF "$marker" "$tree/$file"; then
        echo "NOT RUN: $fault: the fault did not apply to $file (the code it edits changed; update fault_spec)"
        status=1
        continue
    fi
    targets=()
    for p in "${programs[@]}"; do targets+=("build/tests/$p"); done
    if ! make -C "$tree" -j"$jobs" BUILD=build GIT_COMMIT="$commit-fault-$fault" "${targets[@]}" \
        >"$tree/make.log" 2>&1; then
        tail -n 20 "$tree/make.log"
        echo "NOT RUN: $fault: building ${programs[*]} with the fault failed (above)"
        status=1
        continue
    fi
    if [ "$build_only" = 1 ]; then
        echo "built: $fault: ${programs[*]} with the fault in $file"
        continue
    fi
    caught_count=0 not_run=""
    for p in "${programs[@]}"; do
        log=$tree/$p.log
        (cd "$tree" && CGP_TEST_REQUIRE_GPU=1 "build/tests/$p") >"$log" 2>&1 || true
        n=$(grep -cE "$caught" "$log" || true)
        caught_count=$((caught_count + n))
        grep -q '^PASS ' "$log" || [ "$n" -gt 0 ] || not_run="$not_run $p"
        echo "  $p: $n failing cases name the fault, $(grep -c '^FAIL ' "$log" || true) FAIL and" \
             "$(grep -c '^PASS ' "$log" || true) PASS lines in all; first of them:"
        grep -E "$caught" "$log" | head -n 2 | sed 's/^/    /'
        if [ -n "${FAULT_DEMO_LOGS:-}" ]; then
            mkdir -p "$FAULT_DEMO_LOGS"
            cp "$log" "$FAULT_DEMO_LOGS/$fault.$p.log"
        fi
    done
    if [ -n "$not_run" ]; then
        echo "NOT RUN: $fault:$not_run ran no case (no usable GPU?)"
        status=1
    elif [ "$caught_count" -gt 0 ]; then
        echo "guard bites: $fault: $caught_count failing cases"
    else
        echo "GUARD DID NOT BITE: $fault"
        status=1
    fi
done
exit $status
