#!/usr/bin/env bash
# cpu_sass.sh - the tensor-core kernels compile to the instructions they are meant to, without a GPU
# (cuobjdump on the built objects):
#   - kernels/fused/fused_wgmma.cu and kernels/fused/history/fused_wgmma.cu (SM=90 builds them for sm_90a):
#     wgmma (HGMMA.64x64x8.F32.TF32) in every wgmma_conv_gelu_mean, and each of them waits with
#     WARPGROUP.DEPBAR.LE gsb0, 0x1 (one row still in flight): ptxas serializes a wgmma pipeline it cannot
#     prove safe (info C7514, wait 0 after every group), which keeps the results right and loses the asynchrony,
#     so only SASS shows it;
#   - the implicit GEMMs: mma.sync TF32 in every implicit_gemm_conv_gelu_mean (tf32-v9, 3xtf32-v9,
#     kernels/fused/fused_implicit_gemm.cu) and wgmma (HGMMA.64x64x8 or 64x32x8 .F32.TF32) in every
#     implicit_gemm_wgmma_conv_gelu_mean (tf32-v10, v13, 3xtf32-v10, v13, fused_implicit_gemm_wgmma.cu, sm_90a)
#     and every resident_wgmma_conv_gelu_mean (tf32-v11, 3xtf32-v11, v12, fused_resident_wgmma.cu, sm_90a);
#   - the strict-fp32 kernels (kernels/fused/fused_fp32_*.cu, kernels/fused/history/fused_fp32_*.cu): not one
#     tensor-core instruction (HMMA, HGMMA, IMMA, DMMA, BMMA) in any of their functions, and FFMA in each
#     ffma_igemm_conv_gelu_mean (fp32-v10) and each winograd_gemm_conv_gelu_mean (fp32-v11).
# Without cuobjdump (scripts/cuda_binutils.sh finds it) it skips its 10 cases: a FAIL with
# CGP_TEST_REQUIRE_GPU=1 (tests/run_tests.sh); CI installs it from PyPI (.ci/run).
# Run: make test CGP_TEST_FILTER=cpu_sass   (or BUILD=build bash tests/cpu/cpu_sass.sh after make)
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
tmp=$(mktemp -d "${CGP_TEST_TMP:-/tmp}/cpu_sass.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

. tests/lib/cuobjdump.sh
require_cuobjdump cpu_sass

# check_functions name object function-pattern instruction-pattern: every function matching the
# pattern contains the instruction
check_functions() {
    local name=$1 object=$2 function=$3 instruction=$4
    if ! cuobjdump --dump-sass "$object" >"$tmp/sass" 2>"$tmp/err"; then
        echo "FAIL cpu_sass $name: cuobjdump --dump-sass $object: $(head -n 1 "$tmp/err")"
        return
    fi
    awk -v fn="$function" -v ins="$instruction" '
        /Function : / { if (name != "" && !found) { missing++; print "    without it: " name }
                        name = ($0 ~ fn) ? $3 : ""; found = 0; if (name != "") count++ }
        name != "" && index($0, ins) { found = 1 }
        END { if (name != "" && !found) { missing++; print "    without it: " name }
              print count + 0, missing + 0 > "/dev/stderr" }' "$tmp/sass" >"$tmp/missing" 2>"$tmp/counts"
    read -r count missing <"$tmp/counts"
    if [ "$count" -eq 0 ]; then
        echo "FAIL cpu_sass $name: no function matching $function in $object"
    elif [ "$missing" -ne 0 ]; then
        echo "FAIL cpu_sass $name: $missing of $count functions lack '$instruction'"
        cat "$tmp/missing"
    else
        echo "PASS cpu_sass $name ($count functions)"
    fi
}

for object in "$BUILD/obj/kernels/fused/fused_wgmma.cu.o" "$BUILD/obj/kernels/fused/history/fused_wgmma.cu.o"; do
    file=${object#"$BUILD/obj/"}
    if cuobjdump --list-elf "$object" 2>/dev/null | grep -q sm_90a; then
        check_functions "wgmma in the wgmma kernels of ${file%.o}" "$object" wgmma_conv_gelu_mean \
            "HGMMA.64x64x8.F32.TF32"
        check_functions "the wgmma pipeline of ${file%.o} is asynchronous" "$object" wgmma_conv_gelu_mean \
            "WARPGROUP.DEPBAR.LE gsb0, 0x1"
    else
        echo "SKIP cpu_sass wgmma ${file%.o}: $object has no sm_90a code (SM=90 builds it)"
    fi
done

check_functions "mma.sync TF32 in the mma.sync implicit GEMMs" "$BUILD/obj/kernels/fused/fused_implicit_gemm.cu.o" \
    "implicit_gemm_conv_gelu_mean" "HMMA.1688.F32.TF32"
for pair in "fused_implicit_gemm_wgmma implicit_gemm_wgmma_conv_gelu_mean" \
            "fused_resident_wgmma resident_wgmma_conv_gelu_mean"; do
    set -- $pair
    object=$BUILD/obj/kernels/fused/$1.cu.o
    if cuobjdump --list-elf "$object" 2>/dev/null | grep -q sm_90a; then
        check_functions "wgmma in the wgmma implicit GEMMs ($1)" "$object" "$2" "HGMMA.64x"
    else
        echo "SKIP cpu_sass wgmma implicit GEMMs ($1): $object has no sm_90a code (SM=90 builds it)"
    fi
done

# the strict-fp32 objects, those of the sources there are (not a stale object of a removed file): no
# tensor-core instruction anywhere in them
tensor_core=0
for source in kernels/fused/fused_fp32_*.cu kernels/fused/history/fused_fp32_*.cu; do
    object=$BUILD/obj/$source.o
    if ! cuobjdump --dump-sass "$object" >"$tmp/sass" 2>"$tmp/err"; then
        echo "FAIL cpu_sass no tensor core in fp32: cuobjdump --dump-sass $object: $(head -n 1 "$tmp/err")"
        tensor_core=-1
        break
    fi
    if grep -Eq '\b[HIDB]G?MMA' "$tmp/sass"; then
        echo "FAIL cpu_sass no tensor core in fp32: $object: $(grep -Em 1 '\b[HIDB]G?MMA' "$tmp/sass")"
        tensor_core=-1
        break
    fi
    tensor_core=$((tensor_core + 1))
done
if [ "$tensor_core" -gt 0 ]; then
    echo "PASS cpu_sass no tensor core in fp32 ($tensor_core objects)"
elif [ "$tensor_core" -eq 0 ]; then
    echo "FAIL cpu_sass no tensor core in fp32: no kernels/fused/fused_fp32_*.cu source"
fi
check_functions "FFMA in the FFMA implicit GEMM" "$BUILD/obj/kernels/fused/fused_fp32_implicit_gemm.cu.o" \
    ffma_igemm_conv_gelu_mean "FFMA"
check_functions "FFMA in the Winograd GEMM" "$BUILD/obj/kernels/fused/fused_fp32_winograd_gemm.cu.o" \
    winograd_gemm_conv_gelu_mean "FFMA"
