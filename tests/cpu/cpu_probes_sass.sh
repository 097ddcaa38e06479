#!/usr/bin/env bash
# cpu_probes_sass.sh - the ceiling probes of `cgp roofline` compile to the work they are meant to time,
# without a GPU (cuobjdump on the built objects; docs/roofline.md, "Checking the probes' SASS"): a probe whose
# work ptxas folds away (as it folds rcp(rcp(v)) into v, or merges repeated shared loads that are not
# volatile) would time nothing and report a roof no kernel can see. Each probe function must hold at least
# the instructions of one unrolled loop trip:
#   ffma 128 FFMA, mma.sync 32 HMMA.1688.F32.TF32, MUFU ex2 128 MUFU.EX2, MUFU rcp 128 MUFU.RCP,
#   shared memory 64 LDS.128 (4 trips of 16), and with sm_90a code the wgmma probe 16 HGMMA.64x256x8.F32.TF32
#   (4 trips of 4) waiting with WARPGROUP.DEPBAR.LE gsb0, 0x1 (one group still in flight: not serialized).
# The overlap probe of issue 39 (kernels/bench/probe_overlap.cu, sm_90a), its `both` kernel at N = 256 in 2 warpgroups:
#   the wgmma loop's HGMMA.64x256x8.F32.TF32 (one unrolled trip at least, 4) still in flight (DEPBAR.LE gsb0, 0x1),
#   the GELU loop's 64 MUFU.EX2 (gelu_x2 of 64 values: not folded away); the 3-warpgroup kernel's USETMAXREG (the
#   producer's stand-in giving back, the others taking); and no local memory (STL/LDL) in any of its kernels.
# Run: make test CGP_TEST_FILTER=cpu_probes_sass   (or BUILD=build bash tests/cpu/cpu_probes_sass.sh after make)
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
tmp=$(mktemp -d "${CGP_TEST_TMP:-/tmp}/cpu_probes_sass.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

. tests/lib/cuobjdump.sh
require_cuobjdump cpu_probes_sass

# expect_count name sass-file function-pattern instruction least: the one function matching the pattern holds
# the instruction at least `least` times
expect_count() {
    local name=$1 sass=$2 function=$3 instruction=$4 least=$5 result
    result=$(awk -v fn="$function" -v ins="$instruction" '
        /Function : / { inside = ($0 ~ fn); if (inside) functions++ }
        inside && index($0, ins) { count++ }
        END { print functions + 0, count + 0 }' "$sass")
    read -r functions count <<<"$result"
    if [ "$functions" -ne 1 ]; then
        echo "FAIL cpu_probes_sass $name: $functions functions match '$function'"
    elif [ "$count" -lt "$least" ]; then
        echo "FAIL cpu_probes_sass $name: $count '$instruction' in $function, expected at least $least"
    else
        echo "PASS cpu_probes_sass $name ($count $instruction)"
    fi
}

if ! cuobjdump --dump-sass "$BUILD/obj/kernels/bench/probes.cu.o" >"$tmp/probes" 2>"$tmp/err"; then
    echo "FAIL cpu_probes_sass: cuobjdump --dump-sass $BUILD/obj/kernels/bench/probes.cu.o: $(head -n 1 "$tmp/err")"
    exit 0
fi
expect_count "ffma" "$tmp/probes" ffma_probe_kernel "FFMA " 128
expect_count "tf32 mma.sync" "$tmp/probes" tf32_mma_probe_kernel "HMMA.1688.F32.TF32" 32
expect_count "mufu ex2" "$tmp/probes" "mufu_probe_kernelILb0E" "MUFU.EX2" 128
expect_count "mufu rcp" "$tmp/probes" "mufu_probe_kernelILb1E" "MUFU.RCP" 128
expect_count "smem read" "$tmp/probes" smem_probe_kernel "LDS.128" 64

wgmma="$BUILD/obj/kernels/bench/probes_wgmma.cu.o"
if cuobjdump --list-elf "$wgmma" 2>/dev/null | grep -q sm_90a; then
    cuobjdump --dump-sass "$wgmma" >"$tmp/wgmma" 2>/dev/null
    expect_count "tf32 wgmma" "$tmp/wgmma" wgmma_probe_kernel "HGMMA.64x256x8.F32.TF32" 16
    expect_count "tf32 wgmma in flight" "$tmp/wgmma" wgmma_probe_kernel "WARPGROUP.DEPBAR.LE gsb0, 0x1" 4
else
    echo "SKIP cpu_probes_sass wgmma: $wgmma has no sm_90a code (SM=90 builds it)"
fi

overlap="$BUILD/obj/kernels/bench/probe_overlap.cu.o"
if cuobjdump --list-elf "$overlap" 2>/dev/null | grep -q sm_90a; then
    cuobjdump --dump-sass "$overlap" >"$tmp/overlap" 2>/dev/null
    both=overlap_probe_kernelILi256ELi0ELi2E
    expect_count "overlap both: wgmma loop" "$tmp/overlap" "$both" "HGMMA.64x256x8.F32.TF32" 4
    expect_count "overlap both: wgmma in flight" "$tmp/overlap" "$both" "WARPGROUP.DEPBAR.LE gsb0, 0x1" 1
    expect_count "overlap both: GELU loop" "$tmp/overlap" "$both" "MUFU.EX2" 64
    expect_count "overlap setmaxnreg" "$tmp/overlap" overlap_probe_kernelILi256ELi1ELi2E "USETMAXREG" 2
    local_memory=$(grep -cE '[^A-Z.](STL|LDL)[. ]' "$tmp/overlap")
    if [ "$local_memory" -eq 0 ]; then
        echo "PASS cpu_probes_sass overlap: no local memory"
    else
        echo "FAIL cpu_probes_sass overlap: no local memory: $local_memory STL/LDL in $overlap"
    fi
else
    echo "SKIP cpu_probes_sass overlap: $overlap has no sm_90a code (SM=90 builds it)"
fi
