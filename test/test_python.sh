#!/bin/sh
# test/test_python.sh: the Python package python/mpcg (ctypes over the built libmpcg) against
# SciPy: python/tests/test_cg.py, with the ctypes mirror of struct mpcg_info checked against the
# C compiler's layout of it; python/tests/test_scipy_cg.py, mpcg.cg as a drop-in for SciPy's cg;
# python/tests/test_device.py, its device (CuPy) inputs; python/examples/heat.py against
# examples/heat
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CC:=cc}"
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import numpy, scipy' 2>/dev/null; then
    echo "SKIP: no Python with NumPy and SciPy (install python3-numpy python3-scipy)"
    exit 77
fi
lib=
for f in "$top_builddir/.libs/libmpcg.so" "$top_builddir/.libs/libmpcg.dylib"; do
    [ -f "$f" ] && { lib=$f; break; }
done
if [ -z "$lib" ]; then
    echo "SKIP: no shared libmpcg in $top_builddir/.libs (configured with --disable-shared?)"
    exit 77
fi
tmp=`mktemp -d` || exit 1
trap 'rm -rf "$tmp"' EXIT

# struct mpcg_info as the C compiler lays it out: "field offset size" lines and "sizeof N"
cat >"$tmp/layout.c" <<'EOC'
#include <stddef.h>
#include <stdio.h>
#include "mpcg.h"
#define F(f) printf(#f " %zu %zu\n", offsetof(mpcg_info, f), sizeof(((mpcg_info *)0)->f))
int main(void)
{
    F(reason); F(converged); F(iterations); F(true_relres); F(recurrence_relres);
    F(setup_time_s); F(solve_time_s); F(backend); F(precision); F(residual_replacements);
    F(bytes_per_iteration); F(variant); F(variant_reason); F(spmvs); F(spmvs_fp64);
    F(mixed_strategy); F(precision_fallback); F(fallback_iteration); F(storage_fallback);
    F(mixed_head_iterations); F(precond); F(precond_describe); F(precond_setup_time_s);
    F(precond_spmvs); F(spmv_describe);
    printf("sizeof %zu 0\n", sizeof(mpcg_info));
    return 0;
}
EOC
if $CC -I"$top_srcdir/include" -o "$tmp/layout" "$tmp/layout.c" >"$tmp/cc.log" 2>&1 &&
    "$tmp/layout" >"$tmp/layout.txt"; then
    MPCG_INFO_LAYOUT=$tmp/layout.txt; export MPCG_INFO_LAYOUT
else
    cat "$tmp/cc.log"; echo "(the struct layout check is skipped: $CC failed)"
fi

# a libmpcg built with --enable-sanitizers leaves the ASan and UBSan runtimes to the program that
# loads it: the interpreter gets them preloaded (its own allocations are not ours to leak-check)
if nm -D "$lib" 2>/dev/null | grep -q ' U __asan_'; then
    asan=`$CC -print-file-name=libasan.so` ubsan=`$CC -print-file-name=libubsan.so`
    if [ ! -f "$asan" ] || [ ! -f "$ubsan" ]; then
        echo "SKIP: libmpcg is built with ASan but $CC names no libasan.so/libubsan.so to preload"
        exit 77
    fi
    LD_PRELOAD="$asan $ubsan"; export LD_PRELOAD
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"; export ASAN_OPTIONS
fi
MPCG_LIBRARY=`cd "\`dirname "$lib"\`" && pwd`/`basename "$lib"`; export MPCG_LIBRARY
MPCG_TEST_DATA=${MPCG_TEST_DATA:-$top_srcdir/test/data}; export MPCG_TEST_DATA
# no __pycache__ in the source tree
PYTHONDONTWRITEBYTECODE=1; export PYTHONDONTWRITEBYTECODE
"$PYTHON" -W ignore::FutureWarning "$top_srcdir/python/tests/test_cg.py" -v || exit 1
# mpcg.cg as scipy.sparse.linalg.cg: the cases of SciPy's own cg tests, against SciPy
"$PYTHON" -W ignore::FutureWarning "$top_srcdir/python/tests/test_scipy_cg.py" -v || exit 1
# device inputs: the duck typing everywhere; CuPy on a GPU (skipped, with the reason, elsewhere)
"$PYTHON" -W ignore::FutureWarning "$top_srcdir/python/tests/test_device.py" -v || exit 1
# python/examples/heat.py, the twin of examples/heat.c: the same lines on the CPU (one binding,
# one library: the same iterations, residuals and temperatures, step by step)
py=`"$PYTHON" "$top_srcdir/python/examples/heat.py" 32 6 cpu` || { echo "$py"; echo "FAIL: heat.py"; exit 1; }
echo "$py"
[ `echo "$py" | grep -c '^step'` -eq 6 ] || { echo "FAIL: heat.py: expected 6 steps"; exit 1; }
if [ -x "$top_builddir/examples/heat" ]; then
    c=`"$top_builddir/examples/heat" 32 6 cpu` || { echo "FAIL: examples/heat"; exit 1; }
    [ "$py" = "$c" ] || { echo "FAIL: heat.py and examples/heat differ:"; echo "$c"; exit 1; }
    echo "heat.py: the same output as examples/heat"
fi
