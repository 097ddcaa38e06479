#!/usr/bin/env bash
# run_tests.sh - runs every test of the suite and prints "N passed, N failed, N skipped" last.
# Called by `make test` (which builds everything first). Each test program or script prints lines
# "PASS name", "FAIL name: why", "SKIP name: why" (tests/lib/testlib.h); this script counts them:
#   - a SKIP line ending in "(skips the rest of the program)" (no GPU, too little device memory, no
#     cuobjdump) counts as the cases the program has by tests/case_counts.txt, less those it reported;
#     a program that exits 77 (docs/example.c without a GPU) likewise;
#   - a program that exits non-zero without a FAIL line, or reports no case at all, is a failure;
#   - with CGP_TEST_REQUIRE_GPU=1 (the H200 runs) every SKIP is a failure, except a named refusal
#     ("SKIP name: named refusal: status", a refusal the test lists by name); so is exit 77;
#   - exit 77 on a machine with an NVIDIA device (/dev/nvidia<N>) is a failure: the GPU is broken;
#   - a program that should have run and did not (its executable not built, its script missing) is a failure,
#     counted as its cases in tests/case_counts.txt (else 1). Should have run: each program of
#     tests/case_counts.txt (a C program cpu_* also as its asan+ubsan copy) and each program whose source exists
#     (tests/cpu/cpu_*.c twice, tests/gpu/gpu_*.c, docs/example.c), those CGP_TEST_FILTER matches.
# Before the last line: one count per flavour (the CPU tests, the same CPU tests again under
# ASan+UBSan, the CPU scripts, the example, the GPU tests, the Python tests) and the named refusals.
# The last line sums the flavours (with "did not run" where a program did not). Exit code: 1 if anything failed.
# Environment: CGP (the cgp binary), BUILD (the build directory), CGP_TEST_REQUIRE_GPU=1, and
# CGP_TEST_FILTER=regex to run a subset.
set -u
BUILD=${BUILD:-build}
export CGP=${CGP:-$BUILD/cgp}
export CGP_TEST_TMP=$(mktemp -d)
trap 'rm -rf "$CGP_TEST_TMP"' EXIT
log=$CGP_TEST_TMP/log
counts_file=$(dirname "$0")/case_counts.txt
require=${CGP_TEST_REQUIRE_GPU:-}
declare -A fp=() ff=() fs=() cases=() source=() ran=()
flavours=()
refusals=()
notes=()

if [ -f "$counts_file" ]; then
    while read -r prog n from; do
        [[ -z $prog || $prog == \#* ]] && continue
        cases[$prog]=$n source[$prog]=$from
    done <"$counts_file"
fi

device_present() { compgen -G '/dev/nvidia[0-9]*' >/dev/null || compgen -G '/proc/driver/nvidia/gpus/*' >/dev/null; }

# the cases a program stands for when it skips the rest: tests/case_counts.txt less those it reported
rest_of() { # program, cases reported besides the skip
    local n=${cases[$1]:-}
    if [ -z "$n" ]; then
        rest_n=1 rest_what="an unknown number of cases ($1 is not in tests/case_counts.txt; counted as 1)"
        return
    fi
    rest_n=$((n - $2))
    [ "$rest_n" -lt 1 ] && rest_n=1
    rest_what="$rest_n case$([ "$rest_n" -eq 1 ] || echo s) (tests/case_counts.txt: $n in all, ${source[$1]})"
}

run_one() { # flavour, name, command...
    local flavour=$1 name=$2; shift 2
    if [ -n "${CGP_TEST_FILTER:-}" ] && ! [[ $name =~ $CGP_TEST_FILTER ]]; then return; fi
    local prog=${name#asan+ubsan:}
    ran[$name]=1
    echo "== $name"
    local start=$SECONDS
    timeout 1200 "$@" >"$log" 2>&1
    local rc=$?
    cat "$log"
    local p f s=0 line reported rest=0
    p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
    reported=$((p + f + $(grep -c '^SKIP ' "$log")))
    while IFS= read -r line; do
        local n=1 what=""
        if [[ $line == *"(skips the rest of the program)" ]]; then
            rest_of "$prog" $((reported - 1))
            n=$rest_n what=" (stands for $rest_what)" rest=1
        fi
        if [[ $line =~ ^SKIP\ [^:]*:\ named\ refusal: ]]; then
            refusals+=("$line")
            s=$((s + n))
        elif [ "$require" = 1 ]; then
            echo "FAIL ${line#SKIP }$what: a skip, and CGP_TEST_REQUIRE_GPU=1 allows none but named refusals"
            f=$((f + n))
        else
            [ -n "$what" ] && echo "  ... counted as a skip of $rest_what"
            s=$((s + n))
        fi
    done < <(grep '^SKIP ' "$log")
    if [ "$rc" -eq 77 ]; then
        rest_of "$prog" "$reported"
        if [ "$require" = 1 ]; then
            echo "FAIL $name: $(tail -n 1 "$log") (exit 77, stands for $rest_what; CGP_TEST_REQUIRE_GPU=1)"
            f=$((f + rest_n))
        elif device_present; then
            echo "FAIL $name: $(tail -n 1 "$log") (exit 77 on a machine with an NVIDIA device: a broken GPU)"
            f=$((f + rest_n))
        else
            echo "SKIP $name: $(tail -n 1 "$log") (stands for $rest_what)"
            s=$((s + rest_n))
        fi
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $name: exited with code $rc without reporting a failure"
        f=1
    elif [ $((p + f + s)) -eq 0 ]; then
        echo "FAIL $name: ran no case (a test program must report at least one)"
        f=1
    fi
    if [ "$rc" -ne 77 ] && [ "$rest" -eq 0 ] && [ "$f" -eq 0 ] && [ -n "${cases[$prog]:-}" ] &&
        [ "$reported" -ne "${cases[$prog]}" ]; then
        notes+=("$prog reported $reported cases, tests/case_counts.txt says ${cases[$prog]}: after a complete run, \
scripts/case_counts.sh LOG > tests/case_counts.txt")
    fi
    [ -z "${fp[$flavour]+x}" ] && { flavours+=("$flavour"); fp[$flavour]=0 ff[$flavour]=0 fs[$flavour]=0; }
    fp[$flavour]=$((fp[$flavour] + p)); ff[$flavour]=$((ff[$flavour] + f)); fs[$flavour]=$((fs[$flavour] + s))
    echo "-- $name: $p passed, $f failed, $s skipped ($((SECONDS - start)) s)"
}

for t in "$BUILD"/tests/cpu_*; do [ -x "$t" ] && run_one "cpu" "$(basename "$t")" "$t"; done
for t in "$BUILD"/asan/cpu_*; do
    [ -x "$t" ] && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        run_one "cpu asan+ubsan (the cpu cases again, sanitized)" "asan+ubsan:$(basename "$t")" "$t"
done
for t in tests/cpu/*.sh; do [ -f "$t" ] && run_one "cpu scripts" "$(basename "$t")" bash "$t"; done
[ -x "$BUILD/tests/example" ] && run_one "example" "docs/example.c" "$BUILD/tests/example"
for t in "$BUILD"/tests/gpu_*; do [ -x "$t" ] && run_one "gpu" "$(basename "$t")" "$t"; done
for t in tests/python/*.py; do [ -f "$t" ] && run_one "python" "python:$(basename "$t")" python3 "$t"; done

# where a program that should have run is looked for, by the name run_one gives it
where_of() {
    case $1 in
    asan+ubsan:*) echo "$BUILD/asan/${1#asan+ubsan:}" ;;
    python:*) echo "tests/python/${1#python:}" ;;
    *.sh) echo "tests/cpu/$1" ;;
    docs/example.c) echo "$BUILD/tests/example" ;;
    *) echo "$BUILD/tests/$1" ;;
    esac
}
declare -A expected=()
for prog in "${!cases[@]}"; do
    expected[$prog]="listed in tests/case_counts.txt"
    [[ $prog == cpu_* && $prog != *.sh ]] && expected[asan+ubsan:$prog]="listed in tests/case_counts.txt"
done
for src in tests/cpu/cpu_*.c tests/gpu/gpu_*.c docs/example.c; do
    [ -f "$src" ] || continue
    prog=$(basename "$src" .c)
    [ "$src" = docs/example.c ] && prog=docs/example.c
    expected[$prog]="its source $src exists"
    [[ $src == tests/cpu/* ]] && expected[asan+ubsan:$prog]="its source $src exists"
done
missing=0
while IFS= read -r name; do
    [ -z "$name" ] && continue
    if [ -n "${CGP_TEST_FILTER:-}" ] && ! [[ $name =~ $CGP_TEST_FILTER ]]; then continue; fi
    [ -n "${ran[$name]:-}" ] && continue
    n=${cases[${name#asan+ubsan:}]:-1}
    echo "FAIL $name: did not run: no $(where_of "$name") (${expected[$name]}; counted as $n failed case$([ "$n" -eq 1 ] || echo s))"
    missing=$((missing + n))
done < <(printf '%s\n' "${!expected[@]}" | sort)
if [ "$missing" -gt 0 ]; then
    flavours+=("did not run"); fp["did not run"]=0 ff["did not run"]=$missing fs["did not run"]=0
fi

echo
for note in "${notes[@]}"; do echo "note: $note"; done
if [ ${#refusals[@]} -gt 0 ]; then
    echo "named refusals (skipped, allowed with CGP_TEST_REQUIRE_GPU=1): ${#refusals[@]}"
    for r in "${refusals[@]}"; do echo "  $r"; done
fi
passed=0 failed=0 skipped=0
for fl in "${flavours[@]}"; do
    echo "$fl: ${fp[$fl]} passed, ${ff[$fl]} failed, ${fs[$fl]} skipped"
    passed=$((passed + fp[$fl])) failed=$((failed + ff[$fl])) skipped=$((skipped + fs[$fl]))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
