#!/bin/sh
# test/test_example_batch.sh: examples/batch_cells on the CPU: every system of every step
# converges, the example's own checks pass (exit 0), bad usage exits 2
# SPDX-License-Identifier: BSD-3-Clause
: "${top_builddir:=.}"
ex="$top_builddir/examples/batch_cells"
out=`"$ex" --cells=200 --grid=6 --steps=3 --device=cpu` ||
    { echo "$out"; echo "FAIL: batch_cells exited $?"; exit 1; }
echo "$out"
[ `echo "$out" | grep -c '^step .* converged 200/200 '` -eq 3 ] ||
    { echo "FAIL: expected 3 steps with 200/200 converged"; exit 1; }
echo "$out" | grep -q '^all checks passed$' || { echo "FAIL: no 'all checks passed'"; exit 1; }
# a heat source: no maximum principle, the residual checks still hold
"$ex" --cells=50 --grid=4 --steps=2 --source=1 --device=cpu >/dev/null ||
    { echo "FAIL: batch_cells --source=1 exited $?"; exit 1; }
"$ex" --cells=0 >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: --cells=0 should exit 2"; exit 1; }
"$ex" --help | grep -q '^usage: batch_cells' || { echo "FAIL: --help"; exit 1; }
