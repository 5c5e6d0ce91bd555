#!/bin/sh
# test/test_readme_example.sh: the C example of README.md compiles, links and solves
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CC:=cc}"
tmp=`mktemp -d` || exit 1
trap 'rm -rf "$tmp"' EXIT
# the code between the two marker comments of the README, minus the ``` fences
sed -n '/<!-- example:begin -->/,/<!-- example:end -->/p' "$top_srcdir/README.md" |
    grep -v '^<!--' | grep -v '^```' > "$tmp/example.c"
lines=`wc -l < "$tmp/example.c"`
if [ "$lines" -lt 10 ]; then echo "FAIL: no example found in README.md"; exit 1; fi
"$top_builddir/libtool" --mode=link --tag=CC $CC -std=c11 -Wall -Wextra -Werror \
    -I"$top_srcdir/include" -o "$tmp/example" "$tmp/example.c" "$top_builddir/libmpcg.la" \
    >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; echo "FAIL: the README example does not build"; exit 1; }
cd "$top_srcdir" || exit 1
out=`"$top_builddir/libtool" --mode=execute "$tmp/example" 2>&1`
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: the README example exited $rc"; exit 1; }
echo "$out" | grep -q "converged" || { echo "FAIL: the README example did not converge"; exit 1; }
