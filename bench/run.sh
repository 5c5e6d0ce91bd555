#!/bin/sh
# bench/run.sh: run the standard benchmark set, write <gpu>-<date>.md and .json of the results
# SPDX-License-Identifier: BSD-3-Clause
#
# usage: bench/run.sh [OUTDIR]        (OUTDIR default: bench/results of the source tree)
# Run it from the build directory (where spmvbench and cgbench are). Environment:
#   MPCG_BENCH_MATRICES  directory whose *.mtx files are benchmarked too (default
#                        devcarry/matrices; skipped if it does not exist)
#   MPCG_BENCH_SPD       directory holding bcsstk16.mtx and bcsstk25.mtx for the replicate specs
#                        (default: the first of MPCG_BENCH_MATRICES and test/data that holds
#                        the file)
#   MPCG_BENCH_BIN       directory of spmvbench and cgbench (default: the current directory if
#                        they are there, else the top of the source tree)
# Prints the report at the end. Exit status: 0 every benchmark ran and passed its checks,
# 1 one failed (the report shows which, with the end of its output), 77 no usable CUDA GPU.
# docs/benchmarks.md describes the protocol and the output.

here=$(cd "$(dirname "$0")" && pwd) || exit 1
top=$(dirname "$here")
bin=${MPCG_BENCH_BIN:-}
if [ -z "$bin" ]; then
    if [ -x ./spmvbench ]; then bin=$(pwd); else bin=$top; fi
fi
for p in spmvbench cgbench; do
    if [ ! -x "$bin/$p" ]; then
        echo "run.sh: $bin/$p not found: build first (make), or set MPCG_BENCH_BIN" >&2
        exit 1
    fi
done
outdir=${1:-$top/bench/results}
mkdir -p "$outdir" && outdir=$(cd "$outdir" && pwd) || exit 1
mdir=${MPCG_BENCH_MATRICES:-devcarry/matrices}
if [ -d "$mdir" ]; then mdir=$(cd "$mdir" && pwd); fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
t_start=$(date +%s)

# ---------------------------------------------------------------- device and file names
"$bin/spmvbench" --info >"$tmp/info" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    cat "$tmp/info" >&2
    exit $rc
fi
field() { sed -n "s/^$1: //p" "$tmp/info" | head -n 1; }
gpu=$(field device)
cuda=$(field cuda)
cuda_driver=$(field driver)
copy=$(field copy_gbs)
nv_driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
day=$(date -u +%Y-%m-%d)
slug=$(printf '%s' "$gpu" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9][^a-z0-9]*/-/g; s/^-//; s/-$//')
base="$outdir/${slug:-gpu}-$day"
md="$base.md"
json="$base.json"
rm -f "$json"
: >"$tmp/body.md"
: >"$tmp/commands"
: >"$tmp/legend"
failed=0

# ---------------------------------------------------------------- running one benchmark

# section TITLE: a heading in the report
section() {
    printf '\n### %s\n' "$1" >>"$tmp/body.md"
    echo "run.sh: $1" >&2
}

# bench PROG ARGS...: run PROG with ARGS and --json, add its tables and notes to the report
bench() {
    prog=$1
    shift
    echo "$bin/$prog $* --json $json" >>"$tmp/commands"
    t0=$(date +%s)
    "$bin/$prog" "$@" --json "$json" >"$tmp/log" 2>&1
    rc=$?
    t1=$(date +%s)
    {
        printf '\n`%s %s`' "$prog" "$*"
        printf ' (%d s)\n\n' $((t1 - t0))
        sed -n -E 's/^(matrix |x: |solve: |auto: )/- &/p' "$tmp/log"
        echo
        grep '^|' "$tmp/log"
    } >>"$tmp/body.md"
    if ! grep -q "^\*\*$prog\*\*" "$tmp/legend"; then
        printf '**%s**\n\n' "$prog" >>"$tmp/legend"
        sed -n -E 's/^(check|timing|bytes|rotation|cusparse-loop|roofline): /- &/p' "$tmp/log" \
            >>"$tmp/legend"
        echo >>"$tmp/legend"
    fi
    if [ $rc -ne 0 ]; then
        failed=1
        printf '\n**%s exited with status %d.** The end of its output:\n\n```\n' "$prog" $rc \
            >>"$tmp/body.md"
        tail -n 15 "$tmp/log" >>"$tmp/body.md"
        printf '```\n' >>"$tmp/body.md"
    fi
    echo "run.sh:   $prog $* -> exit status $rc, $((t1 - t0)) s" >&2
}

# find_spd NAME: the path of NAME in the first directory that holds it, or nothing
find_spd() {
    for d in "${MPCG_BENCH_SPD:-}" "$mdir" "$top/test/data"; do
        if [ -n "$d" ] && [ -f "$d/$1" ]; then
            echo "$(cd "$d" && pwd)/$1"
            return
        fi
    done
}

# ---------------------------------------------------------------- the standard set
# CG caps: poisson3d:256 at 300 iterations (time), all others at 2000 (ill-conditioned
# matrices stop there with their reason). poisson3d:160 (365 MB of CSR) and poisson3d27:128
# (678 MB) joined for the H200, whose 60 MB L2 holds more of the smaller ones' vectors.
for spec in poisson3d:128 poisson3d27:96 poisson3d:256 poisson3d:160 poisson3d27:128 poisson3d:46; do
    section "$spec"
    bench spmvbench --generate=$spec
    maxit=2000
    if [ $spec = poisson3d:256 ]; then maxit=300; fi
    bench cgbench --generate=$spec --maxit=$maxit
done

# K diagonal copies of the two largest SPD matrices: nnz 150 x 290378 = 43.6 M (bcsstk16) and
# 170 x 252241 = 42.9 M (bcsstk25), plain and randomly permuted
for pair in bcsstk16.mtx:150 bcsstk25.mtx:170; do
    name=${pair%%:*}
    k=${pair##*:}
    file=$(find_spd "$name")
    if [ -z "$file" ]; then
        section "replicate:$name:$k"
        printf '\n**%s not found** (MPCG_BENCH_SPD, MPCG_BENCH_MATRICES, test/data): not run.\n' \
            "$name" >>"$tmp/body.md"
        echo "run.sh: $name not found: replicate:$name:$k not run" >&2
        failed=1
        continue
    fi
    for suffix in "" ":perm"; do
        section "replicate:$name:$k$suffix"
        bench spmvbench "--generate=replicate:$file:$k$suffix"
        bench cgbench "--generate=replicate:$file:$k$suffix" --maxit=2000
    done
done

section "powerlaw:4000000:16"
bench spmvbench --generate=powerlaw:4000000:16
bench cgbench --generate=powerlaw:4000000:16 --maxit=2000

# every .mtx file of the matrices directory: the SpMV of each; CG only where the header says
# symmetric (the set is SPD-only for CG: an unsymmetric matrix such as cage10 or cage11 is
# measured for its SpMV alone; a symmetric one that is not positive definite still stops with
# its reason)
if [ -d "$mdir" ]; then
    for f in "$mdir"/*.mtx; do
        [ -f "$f" ] || continue
        section "$(basename "$f")"
        # mpcg solves square systems: a rectangular file is noted, not benchmarked
        size=$(grep -v '^%' "$f" | awk 'NF { print $1, $2; exit }')
        if [ "${size% *}" != "${size#* }" ]; then
            printf '\n%s is %s x %s, not square: skipped (mpcg solves square systems).\n' \
                "$(basename "$f")" "${size% *}" "${size#* }" >>"$tmp/body.md"
            continue
        fi
        bench spmvbench "$f"
        if head -n 1 "$f" | grep -qiE '[[:space:]]symmetric([[:space:]]|$)'; then
            bench cgbench "$f" --maxit=2000
        else
            printf '\n%s is not symmetric: SpMV only.\n' "$(basename "$f")" >>"$tmp/body.md"
        fi
    done
else
    echo "run.sh: no matrices directory $mdir (MPCG_BENCH_MATRICES): only the standard set" >&2
fi

# ---------------------------------------------------------------- the report
t_end=$(date +%s)
version=$("$bin/cgsolve" --version 2>/dev/null | head -n 1)
configured=$(sed -n 's/^  \$ //p' "$bin/config.log" 2>/dev/null | head -n 1)
{
    echo "# mpcg benchmarks: $gpu, $day"
    echo
    echo "- device: $gpu"
    echo "- CUDA runtime $cuda; the driver supports CUDA $cuda_driver${nv_driver:+; NVIDIA driver $nv_driver}"
    echo "- copy bandwidth: $copy GB/s (spmvbench --info: cudaMemcpyAsync device to device, bytes read + written; each run measures its own, the copy_gbs of its records)"
    echo "- date: $day (UTC); the whole set took $((t_end - t_start)) s"
    echo "- build: ${version:-mpcg}${configured:+, configured with \`$configured\`}"
    echo "- results as JSON: \`$(basename "$json")\`; protocol and columns: docs/benchmarks.md"
    echo
    echo "## Protocol"
    echo
    cat "$tmp/legend"
    echo
    echo "## Commands"
    echo
    echo '```sh'
    cat "$tmp/commands"
    echo '```'
    echo
    echo "## Results"
    cat "$tmp/body.md"
} >"$md"
cat "$md"
echo
echo "run.sh: wrote $md and $json" >&2
if [ $failed -ne 0 ]; then
    echo "run.sh: some benchmarks failed (see above)" >&2
    exit 1
fi
exit 0
