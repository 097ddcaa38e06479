#!/usr/bin/env bash
# run_tests.sh - runs every test of the suite and prints "N passed, N failed, N skipped" last.
# Called by `make test` (which builds everything first). Each test program or script prints
# lines "PASS name", "FAIL name: why", "SKIP name: why"; a program that exits non-zero without
# printing a FAIL line counts as one failure; one that exits 77 (no CUDA device, e.g. the example)
# counts as one SKIP whose reason is its last line (a FAIL with CGP_TEST_REQUIRE_GPU=1).
# Exit code: 1 if anything failed.
# Environment: CGP (the cgp binary), BUILD (the build directory), CGP_TEST_REQUIRE_GPU=1 to make
# GPU tests fail instead of skipping when no GPU is usable, CGP_TEST_FILTER=regex to run a subset.
set -u
BUILD=${BUILD:-build}
export CGP=${CGP:-$BUILD/cgp}
export CGP_TEST_TMP=$(mktemp -d)
trap 'rm -rf "$CGP_TEST_TMP"' EXIT
passed=0 failed=0 skipped=0
log=$CGP_TEST_TMP/log

run_one() { # name, command...
    local name=$1; shift
    if [ -n "${CGP_TEST_FILTER:-}" ] && ! [[ $name =~ $CGP_TEST_FILTER ]]; then return; fi
    echo "== $name"
    local start=$SECONDS
    timeout 1200 "$@" >"$log" 2>&1
    local rc=$?
    cat "$log"
    local p f s
    p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
    if [ "$rc" -eq 77 ] && [ "${CGP_TEST_REQUIRE_GPU:-}" = 1 ]; then
        echo "FAIL $name: $(tail -n 1 "$log") (CGP_TEST_REQUIRE_GPU=1)"
        f=$((f + 1))
    elif [ "$rc" -eq 77 ]; then
        echo "SKIP $name: $(tail -n 1 "$log")"
        s=$((s + 1))
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $name: exited with code $rc without reporting a failure"
        f=1
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    echo "-- $name: $p passed, $f failed, $s skipped ($((SECONDS - start)) s)"
}

for t in "$BUILD"/tests/cpu_*; do [ -x "$t" ] && run_one "$(basename "$t")" "$t"; done
for t in "$BUILD"/asan/cpu_*; do
    [ -x "$t" ] && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        run_one "asan+ubsan:$(basename "$t")" "$t"
done
[ -x "$BUILD/tests/example" ] && run_one "docs/example.c" "$BUILD/tests/example"
for t in tests/cpu/*.sh; do [ -f "$t" ] && run_one "$(basename "$t")" bash "$t"; done
for t in "$BUILD"/tests/gpu_*; do [ -x "$t" ] && run_one "$(basename "$t")" "$t"; done
for t in tests/python/*.py; do [ -f "$t" ] && run_one "python:$(basename "$t")" python3 "$t"; done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
