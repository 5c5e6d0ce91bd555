#!/bin/sh
# test/test_install.sh: `make install prefix=DIR` installs an mpcg.pc that points at DIR, and the
# README example builds with its pkg-config flags against the installed library and runs; the
# Python package installed under DIR imports DIR's libmpcg with no environment variable, and a
# copy of the package without make's _config.py (as `pip install ./python` makes) finds it
# through pkg-config
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CC:=cc}" "${MAKE:=make}"
tmp=`mktemp -d` || exit 1
trap 'rm -rf "$tmp"' EXIT
inst=$tmp/inst
fail() { echo "FAIL: $*"; exit 1; }

# Arrange: a fresh prefix (DESTDIR unset: the prefix alone must do)
$MAKE -C "$top_builddir" install prefix="$inst" DESTDIR= >"$tmp/install.log" 2>&1 ||
    { tail -n 30 "$tmp/install.log"; fail "make install prefix=$inst"; }
# the build directory's mpcg.pc and _config.py now name $inst: make them name the configured
# prefix again
$MAKE -C "$top_builddir" mpcg.pc python/mpcg/_config.py >/dev/null 2>&1

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

# the Python package: under $inst (python/Makefile.mk) where configure found a Python
cfg=`find "$inst" -path '*/mpcg/_config.py' 2>/dev/null | head -n 1`
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import numpy, scipy' 2>/dev/null; then
    echo "(no Python with NumPy and SciPy: the Python install is not checked)"
elif [ ! -f "$inst/lib/libmpcg.so" ]; then
    echo "(no shared libmpcg installed: the Python install is not checked)"
elif nm -D "$inst/lib/libmpcg.so" 2>/dev/null | grep -q ' U __asan_'; then
    # a sanitized libmpcg loads only into a program with the ASan runtime (test_python.sh
    # preloads it); a plain import, which this check is about, cannot load it
    echo "(libmpcg is built with ASan: the Python install is checked by the plain builds)"
else
    [ -n "$cfg" ] || fail "make install put no mpcg/_config.py under $inst"
    site=`dirname "\`dirname "$cfg"\`"`
    echo "the package: $site/mpcg"
    grep -qx "LIBDIR = \"$inst/lib\"" "$cfg" || fail "$cfg does not name $inst/lib"
    # a plain import under the prefix: no MPCG_LIBRARY, MPCG_PREFIX or PKG_CONFIG_PATH
    pyrun() {
        (cd "$tmp" && env -u MPCG_LIBRARY -u MPCG_PREFIX -u LD_PRELOAD "$@" "$PYTHON" -c '
import numpy as np, mpcg
A = np.diag([2.0] * 10) - np.diag([1.0] * 9, 1) - np.diag([1.0] * 9, -1)
x, info = mpcg.cg(A, np.ones(10), device="cpu")
print(mpcg.library_path, int(info), info.iterations)')
    }
    py=`pyrun PYTHONPATH="$site" PKG_CONFIG_PATH=` || fail "import mpcg under $site: $py"
    echo "make install: $py"
    case "$py" in "$inst/lib/libmpcg.so 0 "*) ;; *) fail "not $inst/lib's libmpcg: $py" ;; esac
    # the package without _config.py (pip install ./python): pkg-config finds the install
    if command -v pkg-config >/dev/null 2>&1; then
        # (a distcheck's source tree is read-only, and cp keeps the modes)
        mkdir "$tmp/pip" && cp -R "$top_srcdir/python/mpcg" "$tmp/pip/" &&
            chmod -R u+w "$tmp/pip" && rm -f "$tmp/pip/mpcg/_config.py" || fail "copy the package"
        py=`pyrun PYTHONPATH="$tmp/pip" PKG_CONFIG_PATH="$inst/lib/pkgconfig"` ||
            fail "import mpcg through pkg-config: $py"
        echo "pkg-config: $py"
        case "$py" in "$inst/lib/libmpcg.so 0 "*) ;; *) fail "not $inst/lib's libmpcg: $py" ;; esac
    fi
fi
$MAKE -C "$top_builddir" uninstall prefix="$inst" DESTDIR= >"$tmp/uninstall.log" 2>&1 ||
    { tail -n 30 "$tmp/uninstall.log"; fail "make uninstall prefix=$inst"; }
left=`find "$inst" -type f`
[ -z "$left" ] || fail "left after make uninstall: $left"
echo "PASS"
