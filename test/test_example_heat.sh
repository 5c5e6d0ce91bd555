#!/bin/sh
# test/test_example_heat.sh: examples/heat runs, every step converges, the heat decays
# SPDX-License-Identifier: BSD-3-Clause
: "${top_builddir:=.}"
out=`"$top_builddir/examples/heat" 32 6 cpu` || { echo "$out"; echo "FAIL: heat exited $?"; exit 1; }
echo "$out"
[ `echo "$out" | grep -c '^step'` -eq 6 ] || { echo "FAIL: expected 6 steps"; exit 1; }
echo "$out" | awk '/^step/ {c = $NF; if (p != "" && c >= p) bad = 1; p = c} END {exit bad}' ||
    { echo "FAIL: u(center) does not decay"; exit 1; }
