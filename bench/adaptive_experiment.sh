#!/bin/sh
# bench/adaptive_experiment.sh: the adaptive SpMV backend on the GPU: targets, the seed-003
# experiment shape, the binning's setup cost and the knob sweep (docs/backends/adaptive.md)
# SPDX-License-Identifier: BSD-3-Clause
#
# usage: bench/adaptive_experiment.sh [PART...]     PART: targets seed small sweep (default all)
# Run it from the build directory (where spmvbench and adaptive_sweep are). Environment:
#   MPCG_BENCH_MATRICES  directory of .mtx files: bcsstk16.mtx for the replicate specs, and every
#                        square .mtx for the small-matrix part (default devcarry/matrices)
#   MPCG_BENCH_BIN       directory of spmvbench and adaptive_sweep (default: the current one)
# Parts:
#   targets  spmvbench (checked results, L2 rotation, the standard protocol) of cusparse and
#            adaptive in fp64 and fp32 on the target matrices
#   seed     the seed's experiment on the same matrices: cusparse vs the seed's kernel (one NT
#            from the mean, one row per group, 128 threads) vs a one-thread-per-row CSR kernel vs
#            adaptive's defaults, with the binning's setup cost (adaptive_sweep, warm L2)
#   small    the same on every square .mtx of MPCG_BENCH_MATRICES (launch- and L2-bound sizes:
#            reported apart), then spmvbench of cusparse and adaptive on each
#   sweep    the adaptive.* options on the target matrices (adaptive_sweep)
# Exit status: 0 if every program succeeded, 1 otherwise, 77 without a usable CUDA GPU.

bin=${MPCG_BENCH_BIN:-.}
mdir=${MPCG_BENCH_MATRICES:-devcarry/matrices}
parts=${*:-targets seed small sweep}
failed=0
for p in spmvbench adaptive_sweep; do
    if [ ! -x "$bin/$p" ]; then
        echo "adaptive_experiment.sh: $bin/$p not found: build first (make), or set MPCG_BENCH_BIN" >&2
        exit 1
    fi
done
"$bin/spmvbench" --info || exit $?
bcsstk16=
if [ -f "$mdir/bcsstk16.mtx" ]; then bcsstk16=$(cd "$mdir" && pwd)/bcsstk16.mtx; fi

targets="poisson3d27:96 poisson3d:256 poisson3d:128 powerlaw:4000000:16"
if [ -n "$bcsstk16" ]; then
    targets="$targets replicate:$bcsstk16:150 replicate:$bcsstk16:150:perm"
else
    echo "adaptive_experiment.sh: no $mdir/bcsstk16.mtx: the replicate specs are skipped" >&2
fi

# run PROG ARGS...: print the command, run it, remember a failure
run() {
    echo
    echo "\$ $*"
    "$@"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "adaptive_experiment.sh: exit status $rc: $*" >&2
        failed=1
    fi
}

# the seed's kernel (its mean rule, R = 1, 128 threads, no streaming hints), one thread per row,
# and the defaults (an empty setting: the tuned rule)
seed_configs='; adaptive.mode=uniform,adaptive.rule=seed,adaptive.block=128,adaptive.load=cached; adaptive.mode=uniform,adaptive.nt=1,adaptive.rows=1,adaptive.block=128,adaptive.load=cached'

for part in $parts; do
    case $part in
    targets)
        echo "## targets: spmvbench, cusparse and adaptive"
        for spec in $targets; do
            run "$bin/spmvbench" --generate="$spec" --spmv=cusparse,adaptive --precision=fp64,fp32
        done
        ;;
    seed)
        echo "## seed: cusparse vs the seed's kernel vs one thread per row vs adaptive (large)"
        for spec in $targets; do
            run "$bin/adaptive_sweep" --generate="$spec" --configs="$seed_configs"
        done
        ;;
    small)
        echo "## small: the matrices of $mdir (launch- and L2-bound)"
        if [ ! -d "$mdir" ]; then
            echo "adaptive_experiment.sh: no directory $mdir (MPCG_BENCH_MATRICES)" >&2
            failed=1
            continue
        fi
        for f in "$mdir"/*.mtx; do
            [ -f "$f" ] || continue
            size=$(grep -v '^%' "$f" | awk 'NF { print $1, $2; exit }')
            [ "${size% *}" = "${size#* }" ] || continue # mpcg solves square systems
            run "$bin/adaptive_sweep" "$f" --configs="$seed_configs" --runs=50
            run "$bin/spmvbench" "$f" --spmv=cusparse,adaptive --precision=fp64
        done
        ;;
    sweep)
        echo "## sweep: adaptive.* on the targets"
        uniform_configs='; adaptive.rule=seed; adaptive.rows=1; adaptive.rows=2; adaptive.rows=4; adaptive.load=cached; adaptive.block=256; adaptive.block=64;
            adaptive.nt=1,adaptive.rows=1; adaptive.nt=1,adaptive.rows=2; adaptive.nt=2,adaptive.rows=2; adaptive.nt=4,adaptive.rows=2; adaptive.nt=8,adaptive.rows=2; adaptive.nt=16,adaptive.rows=1;
            adaptive.nt=16,adaptive.rows=2; adaptive.nt=32,adaptive.rows=1; adaptive.nt=32,adaptive.rows=2; adaptive.grid=2112; adaptive.dot_grid=264'
        skewed_configs='; adaptive.rule=seed; adaptive.mode=binned; adaptive.mode=split; adaptive.mode=split,adaptive.nt=16; adaptive.mode=split,adaptive.nt=8;
            adaptive.mode=split,adaptive.nt=16,adaptive.rows=2; adaptive.mode=binned,adaptive.passes=1; adaptive.mode=binned,adaptive.rows=2; adaptive.load=cached;
            adaptive.long_min=512; adaptive.long_min=4096; adaptive.chunk=1024; adaptive.chunk=8192; adaptive.block=256,adaptive.chunk=2048;
            adaptive.mode=uniform; adaptive.mode=uniform,adaptive.nt=16'
        for spec in $targets; do
            case $spec in
            powerlaw*) configs=$skewed_configs ;;
            *) configs=$uniform_configs ;;
            esac
            run "$bin/adaptive_sweep" --generate="$spec" --configs="$(echo $configs)"
        done
        ;;
    *)
        echo "adaptive_experiment.sh: unknown part $part (targets, seed, small, sweep)" >&2
        exit 2
        ;;
    esac
done
exit $failed
