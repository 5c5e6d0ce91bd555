#!/bin/sh
# test/test_symbols.sh: libmpcg.so exports only mpcg_ symbols
# SPDX-License-Identifier: BSD-3-Clause
: "${top_builddir:=.}"
so="$top_builddir/.libs/libmpcg.so"
if [ ! -f "$so" ]; then echo "SKIP: no shared library (built with --disable-shared)"; exit 77; fi
exported=`nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}'`
# the linker's own markers (_init, _fini, _edata, _end, __bss_start) are not ours
bad=`echo "$exported" | grep -v '^mpcg_' | grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$'`
count=`echo "$exported" | grep -c '^mpcg_'`
if [ -n "$bad" ]; then
    echo "FAIL: symbols exported without the mpcg_ prefix:"; echo "$bad" | head -20; exit 1
fi
if [ "$count" -lt 20 ]; then echo "FAIL: only $count mpcg_ symbols exported"; exit 1; fi
echo "ok: $count symbols exported, all mpcg_"
