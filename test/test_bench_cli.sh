#!/bin/sh
# test/test_bench_cli.sh: spmvbench and cgbench: help, usage errors, no-GPU status, a small run;
# batchbench: help, usage errors, no-GPU status
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:=.}" "${top_builddir:=.}"
tmp=`mktemp -d` || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect STATUS PATTERN PROG -- ARGS...: exit status STATUS and PATTERN (grep -E) in the output
expect() {
    want=$1; pat=$2; prog=$3; shift 4
    "$top_builddir/$prog" "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ $rc -ne "$want" ]; then
        echo "FAIL: $prog $* exited $rc, expected $want"; cat "$tmp/out"; fail=1; return
    fi
    if ! grep -Eq -- "$pat" "$tmp/out"; then
        echo "FAIL: $prog $*: output lacks /$pat/"; cat "$tmp/out"; fail=1; return
    fi
    echo "ok: $prog $* -> $rc"
}

for p in spmvbench cgbench; do
    expect 0 "^usage: $p" $p -- --help
    expect 0 '^exit status: 0' $p -- -h
    expect 2 'unknown option --nosuch' $p -- --nosuch --generate=poisson3d:4
    expect 2 'no matrix: give MATRIX.mtx or --generate=SPEC' $p --
    expect 2 'give either MATRIX.mtx or --generate=SPEC, not both' $p -- a.mtx --generate=poisson3d:4
    expect 2 'option needs a value: --json' $p -- --generate=poisson3d:4 --json
    expect 2 '--device must be cuda or cuda:N' $p -- --device=cpu --generate=poisson3d:4
    expect 2 '--runs=0: expected an integer' $p -- --runs=0 --generate=poisson3d:4
done
expect 2 '--precision: expected fp64 and/or fp32' spmvbench -- --precision=fp16 --generate=poisson3d:4
expect 2 '--block=65: expected an integer in \[1, 64\]' spmvbench -- --block=65 --generate=poisson3d:4
expect 2 '--block=0: expected an integer in \[1, 64\]' spmvbench -- --block=0 --generate=poisson3d:4
expect 2 '--tol=2: expected a number in \(0, 1\)' cgbench -- --tol=2 --generate=poisson3d:4
expect 2 '--runs: at most 100' cgbench -- --runs=101 --generate=poisson3d:4
expect 2 '--precision: expected a list of fp64, fp32, mixed' cgbench -- --precision=fp16 --generate=poisson3d:4
expect 2 "unknown option 'cg.nope'" cgbench -- -O cg.nope=1 --generate=poisson3d:4
expect 2 '-O: expected KEY=VALUE' cgbench -- -O cg.variant --generate=poisson3d:4
expect 2 '--rhs=0: expected an integer in \[1, 64\]' cgbench -- --rhs=0 x.mtx
expect 2 '--rhs=65: expected an integer in \[1, 64\]' cgbench -- --rhs=65 x.mtx
expect 2 '--rhs: block CG runs in fp64 only' cgbench -- --rhs=8 --precision=fp32 x.mtx
expect 0 '--rhs=S ' cgbench -- --help

# batchbench: every bad value is a usage error, found before any GPU is looked for
expect 0 '^usage: batchbench' batchbench -- --help
expect 0 '^exit status: 0' batchbench -- -h
expect 2 'unknown option --nosuch' batchbench -- --nosuch
expect 2 'unknown option x.mtx' batchbench -- x.mtx
expect 2 'unknown option --jsonx' batchbench -- --jsonx=r.json
expect 2 'option needs a value: --json' batchbench -- --json
expect 2 '--device must be cuda or cuda:N' batchbench -- --device=cpu
expect 2 '--only: expected spmm or cg, got both' batchbench -- --only=both
expect 2 '--k=0: expected an integer in \[1, 10000000\]' batchbench -- --k=0
expect 2 'option needs a value: --k' batchbench -- --k
expect 2 '--grid=0: expected an integer in \[1, 128\]' batchbench -- --grid=0
expect 2 '--grid=129: expected an integer in \[1, 128\]' batchbench -- --grid=6:129
expect 2 '--grid=G1:G2 needs G1 <= G2, got 16:6' batchbench -- --grid=16:6
expect 2 '--grid=x: expected an integer' batchbench -- --grid=6:x
expect 2 '--s=0: expected an integer in \[1, 64\]' batchbench -- --s=0
expect 2 '--s=65: expected an integer in \[1, 64\]' batchbench -- --s=65
expect 2 '--runs=0: expected an integer in \[1, 1000\]' batchbench -- --runs=0
expect 2 '--loop-count=-1: expected an integer in \[0, 10000000\]' batchbench -- --loop-count=-1
expect 2 '--tol=0: expected a number in \(0, 1\)' batchbench -- --tol=0
expect 2 '--precond: expected none or jacobi, got ilu' batchbench -- --precond=ilu
expect 2 '--seed=-1: expected an integer' batchbench -- --seed=-1

# Without a GPU both exit 77 with a message. With one, a small run: every row measured and
# correct, and the JSON list holds the records of both programs.
"$top_builddir/spmvbench" --generate=poisson3d:6 --spmv=cusparse --runs=5 --json "$tmp/r.json" >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
    if grep -q 'no usable CUDA GPU' "$tmp/out"; then
        echo "ok: spmvbench without a GPU -> 77"
    else
        echo "FAIL: spmvbench exited 77 without the message"; cat "$tmp/out"; fail=1
    fi
    expect 77 'no usable CUDA GPU' cgbench -- --generate=poisson3d:6
    expect 77 'no usable CUDA GPU' spmvbench -- --info
    expect 77 'no usable CUDA GPU' batchbench -- --only=cg --k=10
else
    cat "$tmp/out"
    if [ $rc -ne 0 ]; then echo "FAIL: spmvbench on poisson3d:6 exited $rc"; fail=1; fi
    expect 0 '^\| poisson3d:6 \| 216 \| 1296 \| cusparse \| fp32 \| [0-9.e+-]+ \|' \
        spmvbench -- --generate=poisson3d:6 --runs=5 --precision=fp32 --seed=7
    # --block=3: adaptive's block product beside cusparseSpMM and 3 SpMVs, both precisions
    expect 0 '^\| poisson3d:6 \| 216 \| 1296 \| adaptive \| fp64 \| 3 \| [0-9.e+-]+ \|' \
        spmvbench -- --generate=poisson3d:6 --spmv=adaptive --block=3 --runs=5 --json "$tmp/r.json"
    expect 0 '^\| poisson3d:6 \| 216 \| 1296 \| cusparse-loop \| fp64 \| [0-9]+ \|' \
        cgbench -- --generate=poisson3d:6 --spmv=cusparse --runs=1 --json "$tmp/r.json"
    # auto: its trial, the row of the backend it kept, and that row against the fastest
    expect 0 '^auto: fp64 kept [a-z]+, its row [0-9.e+-]+ ms; the fastest row' \
        spmvbench -- --generate=poisson3d:6 --runs=5 --precision=fp64
    expect 0 '^\| poisson3d:6 \| 216 \| 1296 \| auto \([a-z]+\) \| fp64( \+ none)? \| [0-9]+ \|' \
        cgbench -- --generate=poisson3d:6 --spmv=auto --runs=1
    cat "$tmp/out"
    n_spmv=`grep -c '"kind": "spmv"' "$tmp/r.json"`
    n_cg=`grep -c '"kind": "cg"' "$tmp/r.json"`
    n_spmm=`grep -c '"kind": "spmm".*"block_s": 3' "$tmp/r.json"`
    if [ "$n_spmv" -ne 2 ] || [ "$n_cg" -ne 2 ] || [ "$n_spmm" -ne 4 ]; then
        echo "FAIL: $tmp/r.json holds $n_spmv spmv, $n_spmm spmm and $n_cg cg records," \
            "expected 2, 4 and 2"
        cat "$tmp/r.json"; fail=1
    fi
    if command -v python3 >/dev/null 2>&1 &&
        ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/r.json"; then
        echo "FAIL: $tmp/r.json is not valid JSON"; fail=1
    fi
fi
exit $fail
