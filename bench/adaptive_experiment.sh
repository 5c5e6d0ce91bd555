#!/bin/sh
# bench/adaptive_experiment.sh: the adaptive SpMV backend on the GPU: targets, the seed-003
# experiment shape, the binning's setup cost and the knob sweep (docs/backends.md)
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
#   sweep    the MPCG_ADAPTIVE_* knobs on the target matrices (adaptive_sweep)
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
seed_configs='; MODE=uniform,RULE=seed,BLOCK=128,LOAD=cached; MODE=uniform,NT=1,ROWS=1,BLOCK=128,LOAD=cached'

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
        echo "## sweep: MPCG_ADAPTIVE_* on the targets"
        uniform_configs='; RULE=seed; ROWS=1; ROWS=2; ROWS=4; LOAD=cached; BLOCK=256; BLOCK=64;
            NT=1,ROWS=1; NT=1,ROWS=2; NT=2,ROWS=2; NT=4,ROWS=2; NT=8,ROWS=2; NT=16,ROWS=1;
            NT=16,ROWS=2; NT=32,ROWS=1; NT=32,ROWS=2; GRID=2112; DOT_GRID=264'
        skewed_configs='; RULE=seed; MODE=binned; MODE=split; MODE=split,NT=16; MODE=split,NT=8;
            MODE=split,NT=16,ROWS=2; MODE=binned,PASSES=1; MODE=binned,ROWS=2; LOAD=cached;
            LONG_MIN=512; LONG_MIN=4096; CHUNK=1024; CHUNK=8192; BLOCK=256,CHUNK=2048;
            MODE=uniform; MODE=uniform,NT=16'
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
