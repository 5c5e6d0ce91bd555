#!/bin/sh
# test/test_budget.sh: the library's shape budget (docs/DEVELOPING.md "Budgets"): no getenv but the
# options reader, no file over 600 lines, no function over 80 lines, no strcmp on backend names
# outside the registry
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:=.}"
cd "$top_srcdir" || exit 1
# the library's sources: core, io, spmv (its top and every backend's folder), precond, solver; not
# the cgsolve command (cli/, a client of the public API)
files=`find core io spmv precond solver -type f \( -name '*.[ch]' -o -name '*.cu' -o \
    -name '*.cuh' \) | LC_ALL=C sort`
fail=0

# 1. getenv: only solver/options.c (MPCG_OPTIONS)
env=`grep -n 'getenv *(' $files | grep -v '^solver/options\.c:'`
if [ -n "$env" ]; then echo "FAIL: getenv outside solver/options.c:"; echo "$env"; fail=1; fi
n=`grep -c 'getenv *(' solver/options.c`
if [ "$n" != 1 ]; then echo "FAIL: solver/options.c reads the environment $n times, not once"; fail=1; fi

# 2. files of at most 600 lines
for f in $files; do
    l=`wc -l <"$f"`
    if [ "$l" -gt 600 ]; then echo "FAIL: $f has $l lines (budget 600)"; fail=1; fi
done

# 3. functions of at most 80 lines: a function's body runs from a "{" alone at column 0 to the
# next "}" at column 0 (the project's formatting, .clang-format)
long=`awk 'FNR == 1 { start = 0 }
    /^\{$/ { start = FNR; next }
    /^\}/ && start { if (FNR - start - 1 > 80) printf "%s:%d: %d lines\n", FILENAME, start, FNR - start - 1; start = 0 }' $files`
if [ -n "$long" ]; then echo "FAIL: functions over 80 lines:"; echo "$long"; fail=1; fi

# 4. backend names compared outside spmv/registry.c
names=`sed -n 's/^ *\.name = "\([a-z0-9_]*\)",.*/\1/p' spmv/*/*.c | sort -u | tr '\n' '|' | sed 's/|$//'`
if [ -z "$names" ]; then echo "FAIL: no backend names found in spmv/*/*.c"; exit 1; fi
# ("cpu" is also a device name: it counts only beside a backend's name field)
others=`echo "$names" | tr '|' '\n' | grep -v '^cpu$' | tr '\n' '|' | sed 's/|$//'`
cmp=`grep -nE "strn?cmp *\\(([^;]*\"($others)\"|[^;]*name[^;]*\"cpu\")" $files cli/*.c |
    grep -v '^spmv/registry\.c:'`
if [ -n "$cmp" ]; then echo "FAIL: strcmp on backend names outside spmv/registry.c:"; echo "$cmp"; fail=1; fi

if [ $fail = 0 ]; then
    echo "ok: `echo $files | wc -w` library files; one getenv (MPCG_OPTIONS); files <= 600 lines;" \
        "functions <= 80 lines; backend names compared only in spmv/registry.c ($names)"
fi
exit $fail
