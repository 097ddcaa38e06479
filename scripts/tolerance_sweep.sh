#!/usr/bin/env bash
# tolerance_sweep.sh - how close correct kernels come to the bounds of tests/lib/tolerance.h over many
# draws of the inputs (on a GPU): runs the GPU tests that check numbers with seeds 1..COUNT and prints,
# per error model, the worst ratio of error to bound seen (relative L2 and max abs) and where. Every
# ratio must stay well under 1; docs/testing.md says why the bounds should hold for every draw.
# Usage: scripts/tolerance_sweep.sh [COUNT=20] [BUILD=build]   (after `make test`'s build)
set -uo pipefail
count=${1:-20}
build=${2:-build}
programs=(gpu_fused gpu_tensorcore gpu_nonfinite gpu_coverage gpu_baselines)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for seed in $(seq 1 "$count"); do
    for p in "${programs[@]}"; do
        CGP_TEST_SEED=$seed "$build/tests/$p" >"$out/$p.$seed.log" 2>&1
        grep -h '^FAIL ' "$out/$p.$seed.log" | sed "s/^/seed $seed: /"
        grep -h '^# .* margin, ' "$out/$p.$seed.log" | sed "s/^# /$seed /" >>"$out/margins"
    done
done
echo "worst error / bound over seeds 1..$count (programs: ${programs[*]}):"
awk '{
    m = $0; sub(/^.* margin, /, "", m); sub(/ model:.*/, "", m)
    rel = $0; sub(/^.*worst rel L2 at /, "", rel); sub(/ of its bound.*/, "", rel)
    abs = $0; sub(/^.*worst max abs at /, "", abs); sub(/ \(.*/, "", abs)
    if (rel + 0 > r[m]) { r[m] = rel + 0; rw[m] = "seed " $1 " " $2 }
    if (abs + 0 > a[m]) { a[m] = abs + 0; aw[m] = "seed " $1 " " $2 }
} END { for (m in r) printf "  %-22s rel L2 %.3f (%s), max abs %.3f (%s)\n", m, r[m], rw[m], a[m], aw[m] }' \
    "$out/margins"
