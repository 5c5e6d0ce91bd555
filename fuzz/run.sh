#!/bin/sh
# fuzz/run.sh: build fuzz_mm_read (fuzz/build.sh) and fuzz the Matrix Market reader for a bounded
# time, starting from the corpus test/data/mm and the earlier findings in fuzz/regressions
# SPDX-License-Identifier: BSD-3-Clause
# usage: fuzz/run.sh [SECONDS] (default 180)
# Exits 0 when no input crashed, hung or leaked; else non-zero, with the input saved under
# fuzz/findings/ (make it a test: copy it to test/data/mm/bad_fuzz_NAME.mtx, or to
# fuzz/regressions/ if it is a valid file, and fix the reader). The last line is
# "fuzz: N executions in S s, K crashes".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-180}
build=${FUZZ_BUILD:-$top/fuzz/build}
sh "$top/fuzz/build.sh" "$build" || exit 1
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$top/fuzz/findings"
# a declared size beyond 64 MiB gets MPCG_ERR_HOST_ALLOC (the target accepts it) instead of
# libFuzzer's out-of-memory report; every sanitizer finding is fatal
export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=64:detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}"
# each input becomes a file: keep them in memory where possible
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
seeds="$top/test/data/mm"
[ -d "$top/fuzz/regressions" ] && seeds="$seeds $top/fuzz/regressions"
# first every seed once (the regression pass), then the bounded run; new inputs go to
# $work/corpus, the seed directories are only read
"$build/fuzz_mm_read" -runs=0 $seeds >"$work/seeds.log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
    "$build/fuzz_mm_read" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -dict="$top/fuzz/mm.dict" -print_final_stats=1 -artifact_prefix="$top/fuzz/findings/" \
        "$work/corpus" $seeds >"$work/fuzz.log" 2>&1
    rc=$?
else
    cp "$work/seeds.log" "$work/fuzz.log"
fi
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$work/fuzz.log" | tail -1)
grep -E '^(#[0-9]+[[:space:]]+INITED|Done [0-9]+ runs|stat::(average_exec|new_units|peak_rss))' \
    "$work/fuzz.log"
if [ $rc -ne 0 ]; then
    tail -40 "$work/fuzz.log"
    echo "fuzz: the reader failed on an input (saved under fuzz/findings/)"
fi
echo "fuzz: ${execs:-0} executions in $secs s, $([ $rc -eq 0 ] && echo 0 || echo 1) crashes${cov:+ ($cov)}"
exit $rc
