#!/bin/sh
# test/test_example_device_csr.sh: examples/device_csr runs (a GPU test: SKIP without a GPU or in
# a build without CUDA), every step converges, the heat decays, the plan reads the view in place
# SPDX-License-Identifier: BSD-3-Clause
: "${top_builddir:=.}"
prog=$top_builddir/examples/device_csr
[ -x "$prog" ] || { echo "SKIP: no examples/device_csr (a build without CUDA)"; exit 77; }
out=`"$prog" 48 6`
rc=$?
echo "$out"
[ $rc -eq 77 ] && { echo "SKIP: no usable GPU"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: device_csr exited $rc"; exit 1; }
[ `echo "$out" | grep -c '^step'` -eq 6 ] || { echo "FAIL: expected 6 steps"; exit 1; }
echo "$out" | awk '/^step/ {c = $NF; if (p != "" && c >= p) bad = 1; p = c} END {exit bad}' ||
    { echo "FAIL: u(center) does not decay"; exit 1; }
# the default backend is auto's choice: it reports how it used the view, whichever it is
echo "$out" | grep -q "^spmv: .*device view: " ||
    { echo "FAIL: the plan should say how it used the view"; exit 1; }
out=`"$prog" 24 3 cusparse` || { echo "$out"; echo "FAIL: device_csr with cusparse"; exit 1; }
echo "$out" | grep -q "^spmv: .*device view: the caller's arrays read in place" ||
    { echo "$out"; echo "FAIL: cusparse should read the view in place"; exit 1; }
for b in adaptive segscan cusparsesell; do
    out=`"$prog" 24 3 $b` || { echo "$out"; echo "FAIL: device_csr with $b"; exit 1; }
    echo "$out" | grep "^spmv:"
done
