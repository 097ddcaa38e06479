#!/usr/bin/env bash
# cpu_run_tests.sh - tests/run_tests.sh fails when a program that should have run did not, without a GPU. It runs
# the suite's runner in a scratch tree of stand-in programs (each prints one PASS line), with its own
# tests/case_counts.txt, and removes one program at a time:
#   - the complete tree passes, every stand-in counted;
#   - a GPU test executable missing (listed in case_counts.txt) fails, naming it and counted as its cases there;
#     with CGP_TEST_FILTER not matching it, it is not expected and the run passes;
#   - the same for the sanitized copy of a CPU test (implied by its source), a Python test, a CPU script and the
#     example, and for a GPU test whose source exists but which case_counts.txt does not list.
# Run: make test CGP_TEST_FILTER=cpu_run_tests   (or bash tests/cpu/cpu_run_tests.sh)
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d "${CGP_TEST_TMP:-/tmp}/cpu_run_tests.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/tree
failures=0

pass() { echo "PASS cpu_run_tests $1"; }
fail() { echo "FAIL cpu_run_tests $1: $2"; failures=$((failures + 1)); }

# a stand-in program at path $1 that reports one passing case
stand_in() {
    mkdir -p "$(dirname "$1")"
    printf '#!/bin/sh\necho "PASS %s"\n' "$(basename "$1")" >"$1"
    chmod +x "$1"
}

# the scratch tree: this runner, a case_counts.txt, the sources and the built programs of a complete run
make_tree() {
    rm -rf "$tree"
    mkdir -p "$tree/tests/cpu" "$tree/tests/gpu" "$tree/tests/python" "$tree/docs"
    cp tests/run_tests.sh "$tree/tests/run_tests.sh"
    printf '%s\n' "gpu_a 1 stand-in" "gpu_b 2 stand-in" "python:test_p.py 1 stand-in" "cpu_s.sh 1 stand-in" \
        "docs/example.c 1 stand-in" >"$tree/tests/case_counts.txt"
    touch "$tree/tests/gpu/gpu_a.c" "$tree/tests/gpu/gpu_b.c" "$tree/tests/cpu/cpu_c.c" "$tree/docs/example.c"
    for p in build/tests/gpu_a build/tests/gpu_b build/tests/cpu_c build/asan/cpu_c build/tests/example \
        tests/cpu/cpu_s.sh; do
        stand_in "$tree/$p"
    done
    echo 'print("PASS test_p")' >"$tree/tests/python/test_p.py"
}

# runs the scratch tree's runner with the given environment assignments; its exit code in rc, its output in out
run_tree() {
    (cd "$tree" && env -u CGP_TEST_FILTER -u CGP_TEST_REQUIRE_GPU BUILD=build "$@" bash tests/run_tests.sh) \
        >"$tmp/out" 2>&1
    rc=$?
    out=$(cat "$tmp/out")
}

make_tree
run_tree
if [ "$rc" -eq 0 ] && [[ $out == *$'\n'"7 passed, 0 failed, 0 skipped" ]]; then
    pass "a complete run passes"
else
    fail "a complete run passes" "exit $rc, last line: $(tail -n 1 "$tmp/out")"
fi

# removes one program (path in the tree), runs, and expects a failure naming it with its count
expect_missing() { # name run_tests gives it, path to remove, failed cases it stands for
    make_tree
    rm -f "$tree/$2"
    run_tree
    local want="FAIL $1: did not run"
    if [ "$rc" -ne 0 ] && [[ $out == *"$want"* ]] && [[ $out == *" $3 failed, 0 skipped" ]]; then
        pass "$1 not run ($2 missing) fails"
    else
        fail "$1 not run ($2 missing) fails" "exit $rc, no line \"$want\" with $3 failed; the runner said: $(tr '\n' '|' <"$tmp/out")"
    fi
}
expect_missing gpu_b build/tests/gpu_b 2
expect_missing asan+ubsan:cpu_c build/asan/cpu_c 1
expect_missing python:test_p.py tests/python/test_p.py 1
expect_missing cpu_s.sh tests/cpu/cpu_s.sh 1
expect_missing docs/example.c build/tests/example 1

make_tree
touch "$tree/tests/gpu/gpu_c.c"
run_tree
if [ "$rc" -ne 0 ] && [[ $out == *"FAIL gpu_c: did not run"* ]]; then
    pass "a GPU test with a source but no executable fails"
else
    fail "a GPU test with a source but no executable fails" "exit $rc; the runner said: $(tr '\n' '|' <"$tmp/out")"
fi

make_tree
rm -f "$tree/build/tests/gpu_b"
run_tree CGP_TEST_FILTER=gpu_a
if [ "$rc" -eq 0 ] && [[ $out == *$'\n'"1 passed, 0 failed, 0 skipped" ]]; then
    pass "a program the filter leaves out is not expected"
else
    fail "a program the filter leaves out is not expected" "exit $rc; the runner said: $(tr '\n' '|' <"$tmp/out")"
fi
[ "$failures" -eq 0 ]
