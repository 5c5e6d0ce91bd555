#!/bin/sh
# test/test_fortran.sh: the Fortran module (fortran/): mpcg_info's layout and the enum values
# agree with the C compiler's, atol and the residual history work through it (test/history_f),
# the device-array interfaces reach the library (test/device_f), the caller's callbacks work
# through it (test/callback_f),
# and fortran/example_mm converges in the iterations of
# `cgsolve FILE --precond=jacobi` on bundled and generated SPD matrices; example_heat runs
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:=.}" "${top_builddir:=.}"
ex=$top_builddir/fortran/example_mm
# MPCG_HAVE_FC: configure's answer, passed by `make check`; when run by hand, the built program
if [ "${MPCG_HAVE_FC:-yes}" != yes ] || [ ! -x "$ex" ]; then
    echo "SKIP: no Fortran compiler (configure's summary says fortran: no)"
    exit 77
fi
data=${MPCG_TEST_DATA:-$top_srcdir/test/data}
tmp=`mktemp -d` || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. layout: size and offsets of every field of mpcg_info, and every enum value
"$top_builddir/test/info_layout_c" >"$tmp/c.txt" || fail "info_layout_c exited $?"
"$top_builddir/test/info_layout_f" >"$tmp/f.txt" || fail "info_layout_f exited $?"
diff "$tmp/c.txt" "$tmp/f.txt" || fail "the Fortran type(mpcg_info) or enums differ from C's"
echo "layout: C and Fortran agree ($(head -n 1 "$tmp/c.txt"), $(grep -c '^offset' "$tmp/c.txt") fields, $(grep -c '^enum' "$tmp/c.txt") enum values)"

# 1b. the absolute tolerance and the residual history through the module
out=`"$top_builddir/test/history_f" 2>&1`
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "history_f exited $rc"
# 1c. the device-array interfaces reach the library (refused on a CPU context)
out=`"$top_builddir/test/device_f" 2>&1`
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "device_f exited $rc"

# 1d. the caller's callbacks: a Jacobi callback equals the library's Jacobi bit for bit
out=`"$top_builddir/test/callback_f" "$data/bcsstk05.mtx" 2>&1`
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "callback_f exited $rc"

# 2. example_mm against cgsolve: a generated SPD matrix (1-D Laplacian, n = 200) besides the
# bundled ones
awk 'BEGIN { n = 200; print "%%MatrixMarket matrix coordinate real symmetric";
             print n, n, 2 * n - 1;
             for (i = 1; i <= n; i++) { print i, i, 2.5; if (i < n) print i + 1, i, -1 } }' \
    >"$tmp/lap1d.mtx"
for m in "$data/bcsstk05.mtx" "$data/nos4.mtx" "$tmp/lap1d.mtx"; do
    out=`"$ex" "$m" cpu 2>&1`
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] || fail "example_mm $m exited $rc"
    echo "$out" | grep -q '^reason *MPCG_CONVERGED_RTOL' || fail "example_mm $m: not converged"
    fit=`echo "$out" | awk '/^iterations/ {print $2}'`
    cg=`"$top_builddir/cgsolve" "$m" --precond=jacobi --device=cpu 2>&1` ||
        { echo "$cg"; fail "cgsolve $m exited $?"; }
    cit=`echo "$cg" | awk '/^iterations/ {print $2}'`
    [ -n "$cit" ] || { echo "$cg"; fail "no iterations line from cgsolve $m"; }
    [ "$fit" = "$cit" ] || fail "$m: example_mm took $fit iterations, cgsolve --precond=jacobi $cit"
    # the residual recomputed in Fortran from A's CSR view is below tol too
    echo "$out" | awk '/^true relres/ {r = $NF; sub(/\)$/, "", r); exit !(r + 0 <= 1e-8)}' ||
        fail "$m: the residual recomputed in Fortran is above 1e-8"
    echo "ok: $m: $fit iterations, as cgsolve"
done

# 3. a file that is not there: an error status and the library's message, exit 2
out=`"$ex" "$tmp/missing.mtx" cpu 2>&1`
rc=$?
echo "$out"
[ $rc -eq 2 ] || fail "example_mm on a missing file exited $rc, expected 2"
echo "$out" | grep -q 'MPCG_ERR_IO.*missing.mtx' || fail "no MPCG_ERR_IO message naming the file"

# 4. example_heat: 1-based CSR, update_values each step, every step converges, the heat decays
out=`"$top_builddir/fortran/example_heat" 24 5 cpu 2>&1` || { echo "$out"; fail "example_heat exited $?"; }
echo "$out"
[ `echo "$out" | grep -c '^step'` -eq 5 ] || fail "example_heat: expected 5 steps"
echo "$out" | awk '/^step/ {c = $NF; if (p != "" && c >= p) bad = 1; p = c} END {exit bad}' ||
    fail "example_heat: u(center) does not decay"
echo "PASS"
