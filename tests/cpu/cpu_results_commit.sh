#!/usr/bin/env bash
# cpu_results_commit.sh - the committed results are one run's, and README's section is made from them (no GPU). For
# each device folder with a results run at its top (results/h200, results/h100):
#   - every chart at its top (*.svg, "commit <12 hex>" in its text) names the commit that its zoo.md names
#     ("commit <hex>" in its first lines): one case per chart;
#   - its selection.csv (`cgp select`, the results step) exists with its header;
#   - its zoo.csv has the 17 columns of scripts/torch_compare.py --zoo with GPU time;
# and README.md's results section is what scripts/results_readme.py makes of results/h200's zoo.csv and zoo.md
# (--check); and the files git tracks under results/ add up to 20 MB at most, no file under a history/ over 40 kB
# left plain but a chart or a README (a clone stays small: results/README.md's conventions). A folder's top-level
# files come from one `scripts/h200_session.sh results` run (its README.md).
# Run: make test CGP_TEST_FILTER=cpu_results_commit   (or bash tests/cpu/cpu_results_commit.sh)
# Environment: CGP_RESULTS_DIR names one folder instead, the one README's section is checked against.
set -u
cd "$(dirname "$0")/../.."
readme_dir=${CGP_RESULTS_DIR:-results/h200}
dirs=${CGP_RESULTS_DIR:-results/h200 results/h100}
failures=0
pass() { echo "PASS cpu_results_commit $1"; }
fail() { echo "FAIL cpu_results_commit $1: $2"; failures=$((failures + 1)); }

ZOO_HEADER="n,cin,cout,h,w,padding,precision,cgp_kernel,cgp_ms,best_torch_row,best_torch_ms,speedup,cgp_gpu_ms,\
best_torch_gpu_row,best_torch_gpu_ms,conv_alone_gpu_ms,gpu_speedup"
SELECTION_HEADER="n,cin,cout,h,w,padding,precision,heuristic_kernel,heuristic_gpu_ms,measured_kernel,measured_gpu_ms"

check_header() { # name, file, header, what makes it
    local got
    if [ ! -f "$2" ]; then
        fail "$1" "$2 missing (made by $4)"
    elif got=$(head -n 1 "$2" | tr -d '\r') && [ "$got" = "$3" ]; then
        pass "$1"
    else
        fail "$1" "$2's header is \"$got\", expected \"$3\" (made by $4)"
    fi
}

for dir in $dirs; do
    # the commit zoo.md names (its 12 first hex digits, as the charts print it)
    zoo_commit=
    [ -f "$dir/zoo.md" ] && zoo_commit=$(head -n 6 "$dir/zoo.md" | grep -oE 'commit [0-9a-f]{7,40}' | head -n 1 | cut -c8-19)

    # (a) one case per chart
    charts=$(find "$dir" -maxdepth 1 -name '*.svg' | sort)
    [ -z "$charts" ] && fail "$dir's charts name zoo.md's commit" "no chart (*.svg) in $dir"
    for svg in $charts; do
        name="$svg names the commit of $dir/zoo.md"
        svg_commit=$(grep -oE 'commit [0-9a-f]{12}' "$svg" | head -n 1 | cut -c8-)
        if [ ! -f "$dir/zoo.md" ]; then
            fail "$name" "$dir/zoo.md missing"
        elif [ -z "$zoo_commit" ]; then
            fail "$name" "no \"commit <hex>\" in the first lines of $dir/zoo.md"
        elif [ -z "$svg_commit" ]; then
            fail "$name" "no \"commit <12 hex digits>\" in the text of $svg"
        elif [ "$svg_commit" != "$zoo_commit" ]; then
            fail "$name" "$svg says commit $svg_commit, $dir/zoo.md commit $zoo_commit: not one run's files \
(regenerate both with scripts/h200_session.sh results)"
        else
            pass "$name (commit $svg_commit)"
        fi
    done

    # (b), (c) the headers
    check_header "$dir/selection.csv has the header of cgp select" "$dir/selection.csv" "$SELECTION_HEADER" \
        "the select step of scripts/h200_session.sh results"
    check_header "$dir/zoo.csv has the 17 columns with GPU time" "$dir/zoo.csv" "$ZOO_HEADER" \
        "the torchzoo step of scripts/h200_session.sh results"
done

# (d) README's section against zoo.csv
name="README.md's results section is scripts/results_readme.py's of $readme_dir/zoo.csv"
if ! command -v python3 >/dev/null; then
    echo "SKIP cpu_results_commit $name: no python3"
elif out=$(python3 scripts/results_readme.py --zoo-csv "$readme_dir/zoo.csv" --check README.md 2>&1); then
    pass "$name"
else
    fail "$name" "$(echo "$out" | tr '\n' ' ' | sed 's/  */ /g; s/ $//')"
fi
# (e) results/ within 20 MB in git; (f) history/ files over 40 kB gzipped, a chart or a README excepted
size_name="results/ tracked in git within 20 MB"
plain_name="results/*/history: every file over 40 kB gzipped but charts and READMEs"
limit=20000000
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "SKIP cpu_results_commit $size_name: not a git checkout"
    echo "SKIP cpu_results_commit $plain_name: not a git checkout"
else
    bytes=$(git ls-files -z results | xargs -0 -r stat -c %s | awk '{ s += $1 } END { print s + 0 }')
    if [ "$bytes" -le "$limit" ]; then
        pass "$size_name ($bytes bytes)"
    else
        fail "$size_name" "$bytes bytes, over $limit: gzip the logs (results/README.md, Conventions) or move what is not results out"
    fi
    plain=$(git ls-files -z 'results/*/history/*' | xargs -0 -r stat -c '%s %n' |
        awk '$1 > 40000 && $2 !~ /(\.gz|\.svg|README\.md)$/ { print $2 }')
    if [ -z "$plain" ]; then
        pass "$plain_name"
    else
        fail "$plain_name" "over 40 kB and not gzipped (gzip -9 -n them, results/README.md, Conventions): $(echo $plain)"
    fi
fi
[ "$failures" -eq 0 ]
