#!/bin/sh
# test/test_scipy_crosscheck.sh: cgsolve against scipy.sparse.linalg.cg on the bundled matrices
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:=.}" "${top_builddir:=.}"
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import scipy' 2>/dev/null; then
    echo "SKIP: no Python with SciPy (install python3-scipy)"
    exit 77
fi
tmp=`mktemp -d` || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
# bjacobi needs LAPACKE: a build without it says so, and that preconditioner is skipped
precs="none jacobi bjacobi:4 bjacobi:24"
for m in "$top_srcdir"/test/data/*.mtx; do
  for pc in $precs; do
    "$top_builddir/cgsolve" --device=cpu --quiet --tol=1e-8 --precond=$pc -o "$tmp/x.mtx" \
        --json "$tmp/r.json" "$m" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 0 ] && grep -q "no LAPACKE" "$tmp/err"; then
        echo "skip $pc on $m: `cat "$tmp/err"`"
        continue
    fi
    if [ $rc -ne 0 ]; then echo "FAIL: cgsolve --precond=$pc exited $rc on $m"; fail=1; continue; fi
    it=`"$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"]["iterations"])' "$tmp/r.json"`
    "$PYTHON" "$top_srcdir/test/scipy_cg.py" "$m" "$tmp/x.mtx" "$it" 1e-8 $pc || fail=1
  done
done
exit $fail
