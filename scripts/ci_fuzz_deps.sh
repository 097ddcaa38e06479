#!/usr/bin/env bash
# ci_fuzz_deps.sh - installs what `make fuzz` needs on a Debian machine, only where it is missing:
# clang, and the libFuzzer/ASan/UBSan runtime of that clang (Debian package libclang-rt-<major>-dev;
# clang 14 on Debian 12 does not pull it in). Checks by compiling and linking a tiny fuzz target,
# so it also catches a clang present without its runtime. Uses apt-get (as root, or through sudo).
#
#   bash scripts/ci_fuzz_deps.sh        (then: make fuzz)
set -euo pipefail

apt_install() {
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    echo "ci_fuzz_deps: installing $*"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@"
}

fuzzer_links() { # can clang build and link a libFuzzer target with ASan and UBSan?
    local dir rc=0
    dir=$(mktemp -d)
    printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' >"$dir/t.c"
    clang -fsanitize=fuzzer,address,undefined -o "$dir/t" "$dir/t.c" >/dev/null 2>&1 || rc=1
    rm -rf "$dir"
    return $rc
}

if ! command -v clang >/dev/null 2>&1; then
    apt_install clang
fi
if ! fuzzer_links; then
    major=$(clang -dumpversion | cut -d. -f1)
    apt_install "libclang-rt-${major}-dev"
    if ! fuzzer_links; then
        echo "ci_fuzz_deps: clang $(clang -dumpversion) still cannot link -fsanitize=fuzzer,address,undefined" >&2
        exit 1
    fi
fi
echo "ci_fuzz_deps: ready: $(clang --version | head -n 1), libFuzzer runtime present"
