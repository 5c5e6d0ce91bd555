#!/bin/sh
# build-aux/run-tests.sh: run the test programs and scripts, end with "N passed, N failed[, ...]"
# SPDX-License-Identifier: BSD-3-Clause
# Usage: run-tests.sh TEST... (run in the build directory; scripts *.sh are found in $top_srcdir).
# Each test's output goes to TEST.log; exit status 0 = pass, 77 = skip, anything else = fail.
# The logs of failed tests are shown at the end, before the summary line.
: "${top_srcdir:=.}"
pass=0; fail=0; skip=0; failed=
for t in "$@"; do
    log=`echo "$t" | sed 's/\.sh$//'`.log
    case $t in
        *.sh) ${SHELL:-/bin/sh} "$top_srcdir/$t" >"$log" 2>&1 ;;
        *) "./$t" >"$log" 2>&1 ;;
    esac
    rc=$?
    case $rc in
        0) pass=$((pass + 1)); echo "PASS: $t" ;;
        77) skip=$((skip + 1)); echo "SKIP: $t (`tail -n 1 "$log"`)" ;;
        *) fail=$((fail + 1)); failed="$failed $log"; echo "FAIL: $t (exit status $rc)" ;;
    esac
done
for log in $failed; do
    echo "---------------- $log (last 30 lines)"
    tail -n 30 "$log"
done
if [ "$skip" -gt 0 ]; then
    echo "$pass passed, $fail failed, $skip skipped"
else
    echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
