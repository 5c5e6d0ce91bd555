#!/bin/sh
# test/test_install.sh: `make install prefix=DIR` installs an mpcg.pc that points at DIR, and the
# README example builds with its pkg-config flags against the installed library and runs
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CC:=cc}" "${MAKE:=make}"
tmp=`mktemp -d` || exit 1
trap 'rm -rf "$tmp"' EXIT
inst=$tmp/inst
fail() { echo "FAIL: $*"; exit 1; }

# Arrange: a fresh prefix (DESTDIR unset: the prefix alone must do)
$MAKE -C "$top_builddir" install prefix="$inst" DESTDIR= >"$tmp/install.log" 2>&1 ||
    { tail -n 30 "$tmp/install.log"; fail "make install prefix=$inst"; }
# the build directory's mpcg.pc now names $inst: make it name the configured prefix again
$MAKE -C "$top_builddir" mpcg.pc >/dev/null 2>&1

pc=$inst/lib/pkgconfig/mpcg.pc
[ -f "$pc" ] || fail "no $pc"
[ -f "$inst/include/mpcg.h" ] || fail "no $inst/include/mpcg.h"
cat "$pc"
for v in "prefix=$inst" "libdir=$inst/lib" "includedir=$inst/include"; do
    grep -qx "$v" "$pc" || fail "$pc lacks the line '$v'"
done
grep -q '^Description:.*mixed' "$pc" || fail "$pc does not say mixed precision"

# Act: build the README example with the installed header, library and .pc
sed -n '/<!-- example:begin -->/,/<!-- example:end -->/p' "$top_srcdir/README.md" |
    grep -v '^<!--' | grep -v '^```' >"$tmp/example.c"
if command -v pkg-config >/dev/null 2>&1; then
    flags=`PKG_CONFIG_PATH="$inst/lib/pkgconfig" pkg-config --cflags --libs mpcg` ||
        fail "pkg-config does not read $pc"
    echo "pkg-config --cflags --libs mpcg: $flags"
    case " $flags " in *" -I$inst/include "*) ;; *) fail "no -I$inst/include in '$flags'" ;; esac
    case " $flags " in *" -L$inst/lib "*) ;; *) fail "no -L$inst/lib in '$flags'" ;; esac
else
    echo "(no pkg-config: the flags are taken from $pc by hand)"
    flags="-I$inst/include -L$inst/lib -lmpcg"
fi
$CC -std=c11 -o "$tmp/example" "$tmp/example.c" $flags >"$tmp/build.log" 2>&1 ||
    { cat "$tmp/build.log"; fail "the README example does not build against $inst"; }
out=`cd "$top_srcdir" && LD_LIBRARY_PATH="$inst/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$tmp/example" 2>&1`
rc=$?

# Assert: it ran on the installed library, and uninstall removes every file it installed
echo "$out"
[ $rc -eq 0 ] || fail "the installed README example exited $rc"
echo "$out" | grep -q "converged" || fail "the installed README example did not converge"
$MAKE -C "$top_builddir" uninstall prefix="$inst" DESTDIR= >"$tmp/uninstall.log" 2>&1 ||
    { tail -n 30 "$tmp/uninstall.log"; fail "make uninstall prefix=$inst"; }
left=`find "$inst" -type f`
[ -z "$left" ] || fail "left after make uninstall: $left"
echo "PASS"
