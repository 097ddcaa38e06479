#!/usr/bin/env bash
# cpu_header.sh - the library as another program sees it, without a GPU:
#   - include/cgp.h is self-contained: a C11 and a C++11 translation unit that include only it
#     (and use every type and function) compile with -Wall -Wextra -Werror -pedantic;
#   - $BUILD/libcgp.so exports exactly the functions cgp.h declares (nm -D; mk/libcgp.map);
#   - the link lines of docs/library.md work: a program using only cgp.h links against
#     libcgp.a (static CUDA runtime) and against libcgp.so, and both run the GPU-free calls;
#   - scripts/torch_compare.py --check-lib: its ctypes declarations match the library;
#   - the tools (host/cli, host/bench, host/plot, host/io, reference) ask the kernels through kernel_info.h only,
#     never kernel_api.h (the launch contract of the plan code and the kernels); the check bites on a planted include.
# Run: make test CGP_TEST_FILTER=cpu_header   (or BUILD=build bash tests/cpu/cpu_header.sh after make)
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NVCC_PATH=$(command -v nvcc || true)
CUDA_HOME=${CUDA_HOME:-$([ -n "$NVCC_PATH" ] && dirname "$(dirname "$NVCC_PATH")" || echo /usr/local/cuda)}
CUDA_LIB=$CUDA_HOME/lib64
[ -d "$CUDA_LIB" ] || CUDA_LIB=$CUDA_HOME/targets/x86_64-linux/lib
tmp=$(mktemp -d "${CGP_TEST_TMP:-/tmp}/cpu_header.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0

pass() { echo "PASS cpu_header $1"; }
fail() { echo "FAIL cpu_header $1: $2"; failures=$((failures + 1)); }

# runs a command; on failure prints its output and reports FAIL
expect_ok() { # name, command...
    local name=$1; shift
    if "$@" >"$tmp/out" 2>&1; then pass "$name"; else fail "$name" "$* failed:"; sed 's/^/    /' "$tmp/out"; fi
}

# A translation unit that names every type, constant and function of the API. Valid C and C++.
cat >"$tmp/uses_api.inc" <<'EOF'
#include "cgp.h"

int uses_api(void);
int uses_api(void)
{
    cgp_shape shape = {1, 8, 64, 16, 16};
    cgp_options options = cgp_default_options();
    cgp_plan *plan = NULL;
    size_t bytes = 0;
    int version = 0;
    const char *name = NULL, *kind = NULL;
    cgp_status (*run)(cgp_plan *, const float *, const float *, const float *, float *, void *, size_t,
                      cudaStream_t) = cgp_plan_run;
    cgp_status (*destroy)(cgp_plan *) = cgp_plan_destroy;
    const cgp_candidate *candidates = NULL;
    int candidate_count = 0, from_cache = 0;
    options.padding = CGP_PADDING_SAME;
    options.reduce = CGP_REDUCE_ATOMIC;
    options.precision = CGP_PRECISION_TF32X3;
    options.select = CGP_SELECT_HEURISTIC;
    cgp_status status = cgp_plan_create(&plan, &shape, &options);
    if (status == CGP_SUCCESS) {
        status = cgp_plan_workspace_size(plan, &bytes);
        status = cgp_plan_kernel(plan, &version, &name);
        status = cgp_plan_kernel_kind(plan, &kind);
        status = cgp_plan_candidates(plan, &candidates, &candidate_count, &from_cache);
        status = run(plan, NULL, NULL, NULL, NULL, NULL, bytes, (cudaStream_t)0);
        status = destroy(plan);
    }
    options.select = CGP_SELECT_MEASURED;
    if (cgp_plan_create_measured(&plan, &shape, &options, NULL, NULL, NULL, NULL, (cudaStream_t)0) == CGP_SUCCESS)
        status = destroy(plan);
    if (candidate_count > 0)
        status = (cgp_status)(status + candidates[0].version + (candidates[0].name != NULL) +
                              (candidates[0].unsupported != NULL) + (int)(candidates[0].median_ms < 0.0f) + from_cache);
    return (int)status + (int)cgp_output_height(&shape, options.padding) +
           (int)cgp_output_width(&shape, CGP_PADDING_VALID) + (int)cgp_status_string(status)[0] +
           (int)cgp_last_error_detail()[0] + (kind != NULL) + cgp_version() + CGP_VERSION_MAJOR + CGP_VERSION_MINOR +
           (int)CGP_REDUCE_DET + (int)CGP_PRECISION_FP32 + (int)CGP_PRECISION_TF32 + (int)CGP_ERROR_INVALID_PLAN;
}
EOF
cp "$tmp/uses_api.inc" "$tmp/uses_api.c"
cp "$tmp/uses_api.inc" "$tmp/uses_api.cpp"
INC="-Iinclude -I$CUDA_HOME/include"
expect_ok "cgp.h alone in C11 (gcc -std=c11 -Wall -Wextra -Werror -pedantic)" \
    gcc -std=c11 -Wall -Wextra -Werror -pedantic -Wstrict-prototypes $INC -c "$tmp/uses_api.c" -o "$tmp/c.o"
expect_ok "cgp.h alone in C++11 (g++ -std=c++11 -Wall -Wextra -Werror -pedantic)" \
    g++ -std=c++11 -Wall -Wextra -Werror -pedantic $INC -c "$tmp/uses_api.cpp" -o "$tmp/cpp.o"

# exports of libcgp.so against the functions cgp.h declares (comments stripped by the preprocessor)
name="libcgp.so exports exactly the functions of cgp.h"
if [ ! -f "$BUILD/libcgp.so" ]; then
    fail "$name" "$BUILD/libcgp.so is missing (run make first)"
else
    gcc -E -P -x c $INC include/cgp.h | grep -oE '\bcgp_[a-z0-9_]+ *\(' | sed 's/ *($//' | sort -u >"$tmp/declared"
    nm -D --defined-only "$BUILD/libcgp.so" | awk '{print $3}' | sort -u >"$tmp/exported"
    if [ ! -s "$tmp/declared" ]; then
        fail "$name" "found no function declarations in include/cgp.h"
    elif cmp -s "$tmp/declared" "$tmp/exported"; then
        pass "$name ($(wc -l <"$tmp/declared") symbols)"
    else
        extra=$(comm -13 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
        missing=$(comm -23 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
        fail "$name" "exported but not declared: [${extra% }], declared but not exported: [${missing% }] (the list is mk/libcgp.map)"
    fi
fi

# a program that makes the calls that need no GPU; the link lines are those of docs/library.md
cat >"$tmp/no_gpu_calls.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "cgp.h"

int main(void)
{
    const cgp_shape shape = {2, 3, 4, 9, 11};
    cgp_options options = cgp_default_options();
    cgp_plan *plan = NULL;
    int bad = 0;
    bad |= cgp_output_height(&shape, CGP_PADDING_VALID) != 7 || cgp_output_width(&shape, CGP_PADDING_SAME) != 11;
    bad |= cgp_plan_create(NULL, &shape, &options) != CGP_ERROR_NULL_POINTER;
    options.padding = (cgp_padding)5;
    bad |= cgp_plan_create(&plan, &shape, &options) != CGP_ERROR_INVALID_OPTION || plan != NULL;
    bad |= strstr(cgp_last_error_detail(), "padding") == NULL;
    bad |= strcmp(cgp_status_string(CGP_SUCCESS), "success") != 0;
    printf("%s: %s\n", bad ? "wrong" : "ok", cgp_last_error_detail());
    return bad;
}
EOF
for kind in static shared; do
    name="link line ($kind) builds and runs a program"
    if [ $kind = static ]; then
        link=("$BUILD/libcgp.a" -L"$CUDA_LIB" -lcudart_static -ldl -lrt -lpthread -lstdc++ -lm)
    else
        link=(-L"$BUILD" -lcgp -Wl,-rpath,"$(cd "$BUILD" && pwd)")
    fi
    if ! gcc -std=c11 $INC "$tmp/no_gpu_calls.c" -o "$tmp/no_gpu_calls_$kind" "${link[@]}" >"$tmp/out" 2>&1; then
        fail "$name" "gcc ... ${link[*]} failed:"
        sed 's/^/    /' "$tmp/out"
    elif ! "$tmp/no_gpu_calls_$kind" >"$tmp/out" 2>&1; then
        fail "$name" "the program says: $(cat "$tmp/out")"
    else
        pass "$name"
    fi
done
# the ctypes declarations of the cgp Python module against cgp.h and the library (no torch needed)
name="python/cgp ctypes declarations match cgp.h and libcgp.so (scripts/torch_compare.py --check-lib)"
if ! command -v python3 >/dev/null; then
    echo "SKIP cpu_header $name: no python3"
elif [ ! -f "$BUILD/libcgp.so" ]; then
    fail "$name" "$BUILD/libcgp.so is missing (run make first)"
elif python3 scripts/torch_compare.py --check-lib --lib "$BUILD/libcgp.so" >"$tmp/out" 2>&1; then
    pass "$name"
else
    fail "$name" "$(tr '\n' ' ' <"$tmp/out")"
fi
# the tools include kernel_info.h, not kernel_api.h (kernels/fused/kernel_info.h says why)
TOOL_DIRS="host/cli host/bench host/plot host/io reference"
api_includers() { grep -rlE '^[[:space:]]*#[[:space:]]*include[[:space:]]+["<]kernel_api\.h[">]' "$@" 2>/dev/null; }
name="the tools ($TOOL_DIRS) include kernel_info.h, never kernel_api.h"
found=$(api_includers $TOOL_DIRS)
if [ -n "$found" ]; then fail "$name" "kernel_api.h included by: $(echo $found)"; else pass "$name"; fi
mkdir -p "$tmp/planted" && printf '#include "kernel_api.h"\n' >"$tmp/planted/tool.c"
name="the kernel_api.h check finds a planted include"
if [ "$(api_includers "$tmp/planted")" = "$tmp/planted/tool.c" ]; then pass "$name"; else fail "$name" "not found"; fi
[ "$failures" -eq 0 ]
