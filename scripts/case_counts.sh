#!/usr/bin/env bash
# case_counts.sh - tests/case_counts.txt from the log of a complete `make test` run (the H200 run with
# CGP_TEST_REQUIRE_GPU=1, where nothing skips but named refusals): for each test program that can skip
# the rest of its cases (the GPU tests, the example, cpu_sass.sh, cpu_probes_sass.sh, the Python tests), the cases it
# reported. tests/run_tests.sh uses the file to say how many cases such a program stands for when it
# skips (no GPU, no cuobjdump). Refuses a log in which a program skipped the rest.
# Usage: scripts/case_counts.sh results/h200/make_test_<commit>.log > tests/case_counts.txt
set -euo pipefail
log=${1:?usage: scripts/case_counts.sh LOG}
if grep -q '(skips the rest of the program)' "$log"; then
    echo "case_counts.sh: $log is not a complete run (a program skipped the rest of its cases)" >&2
    exit 2
fi
echo "# case_counts.txt - the cases each test program reports in a complete run, from $log"
echo "# (written by scripts/case_counts.sh; tests/run_tests.sh reads it). Columns: program, cases, source."
sed -n 's/^-- \([^ ]*\): \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped.*/\1 \2 \3 \4/p' "$log" |
    grep -E '^(gpu_|docs/example.c |cpu_sass.sh |cpu_probes_sass.sh |python:)' |
    while read -r prog p f s; do echo "$prog $((p + f + s)) $(basename "$log")"; done
