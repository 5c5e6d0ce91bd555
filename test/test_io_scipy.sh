#!/bin/sh
# test/test_io_scipy.sh: the Matrix Market corpus (test/data/mm) read by mpcg against
# scipy.io.mmread: valid files give exactly scipy's matrix, malformed ones FILE:LINE: reason
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:=.}" "${top_builddir:=.}"
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import scipy' 2>/dev/null; then
    echo "SKIP: no Python with SciPy (install python3-scipy)"
    exit 77
fi
exec "$PYTHON" "$top_srcdir/test/mm_compare.py" "$top_builddir/test/mm_dump" \
    "$top_srcdir/test/data/mm"
