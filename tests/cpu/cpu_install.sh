#!/usr/bin/env bash
# cpu_install.sh - `make install` (mk/install.mk) into a staging directory, without a GPU:
#   - it installs bin/cgp, lib/cgp/libcgp_tool.so (the kernels and tool code cgp runs), include/cgp.h,
#     lib/libcgp.a, lib/libcgp.so and lib/pkgconfig/cgp.pc;
#   - the installed cgp runs (`cgp --version` names the version cgp.h declares) on the installed libcgp_tool.so
#     (its rpath, $ORIGIN/../lib/cgp, not the build directory's copy);
#   - cgp.pc carries prefix, the version of cgp.h, Cflags naming the installed header and the CUDA headers, Libs
#     naming -lcgp, Libs.private the static CUDA runtime (the CUDA headers' folder holds cuda_runtime_api.h);
#   - a C program built with cgp.pc's Cflags and Libs against the staged copy links, and one built with its
#     --static flags (Libs and Libs.private, libcgp.a) links too.
# Run: make test CGP_TEST_FILTER=cpu_install   (or bash tests/cpu/cpu_install.sh after make)
# Environment: BUILD (the build directory, default build).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
tmp=$(mktemp -d "${CGP_TEST_TMP:-/tmp}/cpu_install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=/opt/cgp-test
stage=$tmp/stage
failures=0
pass() { echo "PASS cpu_install $1"; }
fail() { echo "FAIL cpu_install $1: $2"; failures=$((failures + 1)); }

if ! make -s BUILD="$BUILD" PREFIX="$prefix" DESTDIR="$stage" install >"$tmp/make.log" 2>&1; then
    fail "make install" "$(tail -n 5 "$tmp/make.log" | tr '\n' ' ')"
    exit 1
fi
missing=
for f in bin/cgp lib/cgp/libcgp_tool.so include/cgp.h lib/libcgp.a lib/libcgp.so lib/pkgconfig/cgp.pc; do
    [ -f "$stage$prefix/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && pass "installs bin, include, lib and pkg-config" || fail "installs bin, include, lib and pkg-config" "missing:$missing"

major=$(sed -n 's/^#define CGP_VERSION_MAJOR \([0-9]*\)/\1/p' include/cgp.h)
minor=$(sed -n 's/^#define CGP_VERSION_MINOR \([0-9]*\)/\1/p' include/cgp.h)
out=$("$stage$prefix/bin/cgp" --version 2>&1)
[[ $out == "cgp $major.$minor "* ]] && pass "the installed cgp runs ($out)" || fail "the installed cgp runs" "got: $out"
tool_so=$(ldd "$stage$prefix/bin/cgp" 2>&1 | sed -n 's/^[[:space:]]*libcgp_tool\.so => \([^ ]*\) .*/\1/p')
[ -n "$tool_so" ] && [ "$(readlink -f "$tool_so")" = "$(readlink -f "$stage$prefix/lib/cgp/libcgp_tool.so")" ] && pass "the installed cgp loads the installed libcgp_tool.so" ||
    fail "the installed cgp loads the installed libcgp_tool.so" "ldd resolves it to '${tool_so:-nothing}'"

pc=$stage$prefix/lib/pkgconfig/cgp.pc
field() { sed -n "s/^$1: *//p" "$pc"; }
# the .pc's variables resolved for the staged copy (what PKG_CONFIG_SYSROOT_DIR would do)
resolve() { sed -e "s|\${includedir}|$stage$prefix/include|g" -e "s|\${libdir}|$stage$prefix/lib|g"; }
cflags=$(field Cflags | resolve) libs=$(field Libs | resolve) private=$(field Libs.private)
cuda_headers=0
for flag in $cflags; do [ -f "${flag#-I}/cuda_runtime_api.h" ] && cuda_headers=1; done
if grep -qx "prefix=$prefix" "$pc" && [ "$(field Version)" = "$major.$minor" ] && [[ $cflags == *"-I$stage$prefix/include"* ]] &&
    [ $cuda_headers = 1 ] && [[ $libs == *"-lcgp"* ]] && [[ $private == *"-lcudart_static"* ]]; then
    pass "cgp.pc: prefix, version $major.$minor, Cflags, Libs, Libs.private"
else
    fail "cgp.pc: prefix, version, Cflags, Libs, Libs.private" "$(tr '\n' ' ' <"$pc")"
fi

cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
#include "cgp.h"
int main(void)
{
    cgp_shape s = {1, 1, 1, 3, 3};
    printf("%d %lld\n", cgp_version(), (long long)cgp_output_height(&s, CGP_PADDING_VALID));
    return 0;
}
EOF
want="$((major * 1000 + minor)) 1"
# shellcheck disable=SC2086 # the flags are words
if gcc -std=c11 $cflags "$tmp/prog.c" -o "$tmp/prog_shared" $libs >"$tmp/cc.log" 2>&1; then
    got=$("$tmp/prog_shared" 2>&1)
    [ "$got" = "$want" ] && pass "a program built with cgp.pc links libcgp.so and runs" ||
        fail "a program built with cgp.pc links libcgp.so and runs" "printed '$got', expected '$want'"
else
    fail "a program built with cgp.pc links libcgp.so" "$(tail -n 3 "$tmp/cc.log" | tr '\n' ' ')"
fi
# shellcheck disable=SC2086
if gcc -std=c11 $cflags "$tmp/prog.c" -o "$tmp/prog_static" -L"$stage$prefix/lib" -l:libcgp.a $private \
    >"$tmp/cc.log" 2>&1; then
    got=$("$tmp/prog_static" 2>&1)
    [ "$got" = "$want" ] && pass "a program built with cgp.pc --static links libcgp.a and runs" ||
        fail "a program built with cgp.pc --static links libcgp.a and runs" "printed '$got', expected '$want'"
else
    fail "a program built with cgp.pc --static links libcgp.a" "$(tail -n 3 "$tmp/cc.log" | tr '\n' ' ')"
fi
exit $((failures > 0))
