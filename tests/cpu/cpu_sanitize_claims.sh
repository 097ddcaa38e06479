#!/usr/bin/env bash
# cpu_sanitize_claims.sh - `make sanitize`'s plumbing (mk/sanitize.mk), without a GPU: with a stand-in for
# compute-sanitizer that takes runs as tests/gpu/sanitize_main.c does under CGP_SANITIZE_CLAIMS (an exclusive create
# of <claims dir>/<run>; 60 runs, each a few ms), in a scratch BUILD:
#   - every run goes to exactly one process of each tool (memcheck, racecheck --once, synccheck, initcheck, memcheck
#     --default): none twice, none left;
#   - the run ends "sanitize: no errors" and exits 0;
#   - a stand-in whose one racecheck process reports an error makes it exit non-zero saying ERRORS.
# Run: make test CGP_TEST_FILTER=cpu_sanitize_claims   (or bash tests/cpu/cpu_sanitize_claims.sh)
set -u
cd "$(dirname "$0")/../.."
tmp=${CGP_TEST_TMP:-$(mktemp -d)}/sanitize_claims
rm -rf "$tmp" && mkdir -p "$tmp"
failures=0
pass() { echo "PASS cpu_sanitize_claims $1"; }
fail() { echo "FAIL cpu_sanitize_claims $1: $2"; failures=$((failures + 1)); }

RUNS=60
stub=$tmp/compute-sanitizer
cat > "$stub" <<STUB
#!/usr/bin/env bash
# --tool T --error-exitcode N DRIVER [args]: claims runs 0..$((RUNS - 1)) in CGP_SANITIZE_CLAIMS as sanitize_main does
tool=\$2
set -o noclobber
for i in \$(seq 0 $((RUNS - 1))); do
    { : > "\$CGP_SANITIZE_CLAIMS/\$i"; } 2>/dev/null || continue
    echo "PASS run \$i"
    sleep 0.00\$((RANDOM % 9))
done
if [ -n "\${STUB_FAIL_TOOL:-}" ] && [ "\$tool" = "\$STUB_FAIL_TOOL" ] && mkdir "\$CGP_SANITIZE_CLAIMS/failed" 2>/dev/null; then
    echo "========= ERROR SUMMARY: 1 error"; exit 99
fi
echo "========= ERROR SUMMARY: 0 errors"
STUB
chmod +x "$stub"
driver=$tmp/sanitize_main # the stand-in never runs it
: > "$driver"

run_make() { # build dir, then environment assignments
    local build=$1; shift
    # a make of its own (not the jobs or variables of a `make test` around it), the driver a file it never remakes
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$@" make -s --no-print-directory -o "$driver" BUILD="$build" \
        SANITIZE_DRIVER="$driver" SANITIZER="$stub" sanitize > "$build.out" 2>&1
}

mkdir -p "$tmp/ok"
run_make "$tmp/ok"
rc=$?
if [ $rc -eq 0 ] && tail -n 1 "$tmp/ok.out" | grep -q "^sanitize: no errors"; then
    pass "make sanitize ends without errors"
else
    fail "make sanitize ends without errors" "exit $rc, last line: $(tail -n 1 "$tmp/ok.out")"
fi
# per tool (the "== compute-sanitizer --tool T ... args (" header's T and args), the runs its processes reported
report=$(awk '/^== compute-sanitizer/ { split($0, a, " \\("); sub(/^== compute-sanitizer --tool /, "", a[1]);
                                        sub(/ [^ ]*sanitize_main/, "", a[1]); gsub(/ /, "_", a[1]); tool = a[1] }
              /^PASS run / { print tool "|" $3 }' "$tmp/ok/sanitize.log" 2>/dev/null | sort | uniq -c)
tools=$(echo "$report" | awk '{ split($2, t, "|"); print t[1] }' | sort -u | wc -l)
twice=$(echo "$report" | awk '$1 != 1' | head -n 3)
counts=$(echo "$report" | awk '{ split($2, t, "|"); n[t[1]]++ } END { for (k in n) print k ": " n[k] }' | sort)
if [ "$tools" -eq 5 ] && [ -z "$twice" ] && ! echo "$counts" | grep -qv ": $RUNS\$"; then
    pass "make sanitize gives each run to exactly one process of each tool ($tools tools x $RUNS runs)"
else
    fail "make sanitize gives each run to exactly one process of each tool" \
        "$tools tools; runs per tool: $(echo "$counts" | tr '\n' ';') taken twice: ${twice:-none}"
fi

mkdir -p "$tmp/err"
run_make "$tmp/err" STUB_FAIL_TOOL=racecheck
rc=$?
if [ $rc -ne 0 ] && grep -q "^sanitize: ERRORS" "$tmp/err.out"; then
    pass "make sanitize fails where one process reports an error"
else
    fail "make sanitize fails where one process reports an error" "exit $rc, no \"sanitize: ERRORS\" line"
fi
[ $failures -eq 0 ]
