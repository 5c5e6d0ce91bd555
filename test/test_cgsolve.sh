#!/bin/sh
# test/test_cgsolve.sh: the cgsolve command: exit statuses, messages, reports, stored results
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:=.}" "${top_builddir:=.}"
cg="$top_builddir/cgsolve"
data="$top_srcdir/test/data"
tmp=`mktemp -d` || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect STATUS PATTERN -- ARGS...: exit status STATUS and PATTERN (grep -E) in stdout+stderr
expect() {
    want=$1; pat=$2; shift 3
    "$cg" "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ $rc -ne "$want" ]; then
        echo "FAIL: cgsolve $* exited $rc, expected $want"; cat "$tmp/out"; fail=1; return
    fi
    if ! grep -Eq -- "$pat" "$tmp/out"; then
        echo "FAIL: cgsolve $*: output lacks /$pat/"; cat "$tmp/out"; fail=1; return
    fi
    echo "ok: cgsolve $* -> $rc"
}

# usage and information
expect 0 '^usage: cgsolve' -- --help
expect 0 '^cgsolve \(mpcg\) [0-9]+\.[0-9]+\.[0-9]+$' -- --version
expect 0 '^cpu +fp64,fp32 +cpu +yes' -- --list-backends
expect 2 'no matrix: give A.mtx or --generate' --
expect 2 'unknown option --nosuch' -- --nosuch "$data/nos4.mtx"
expect 2 'option --tol needs a value' -- "$data/nos4.mtx" --tol
expect 2 '--tol=2: expected a number in \(0, 1\)' -- --tol=2 "$data/nos4.mtx"
expect 2 '--rhs=zeros: expected ones, random or Aones' -- --rhs=zeros "$data/nos4.mtx"
expect 2 'give either A.mtx or --generate, not both' -- --generate=poisson2d:4 "$data/nos4.mtx"
expect 2 '--precision=fp32: this version solves in fp64 only' -- --precision=fp32 "$data/nos4.mtx"

# solves
expect 0 'result +converged' -- --device=cpu "$data/gr_30_30.mtx"
expect 0 '^device +cpu' -- --device=cpu --rhs=random --seed=7 "$data/nos4.mtx"
expect 0 'no usable GPU found, running on the CPU|^device +cuda' -- "$data/mesh2em5.mtx"
expect 0 'iterations +[0-9]+' -- --device=cpu --rhs=Aones --tol=1e-10 "$data/bcsstk05.mtx"
expect 0 'matrix +poisson2d:16: n = 256, nnz = 1216' -- --device=cpu --generate=poisson2d:16
expect 0 'iteration +3  recurrence relres' -- --device=cpu --monitor=3 "$data/nos4.mtx"
expect 1 'NOT converged \(diverged: maximum number of iterations reached\)' -- \
    --device=cpu --maxit=2 "$data/fv1.mtx"
"$cg" --device=cpu --quiet "$data/nos4.mtx" >"$tmp/out" 2>&1 || { echo "FAIL: --quiet run"; fail=1; }
if [ -s "$tmp/out" ]; then echo "FAIL: --quiet printed something"; cat "$tmp/out"; fail=1; fi

# bad input: exit 3 with file:line: for malformed files
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n3 1 2.0\n' > "$tmp/bad.mtx"
expect 3 'bad.mtx:4: .*row index 3 out of range' -- --device=cpu "$tmp/bad.mtx"
printf '%%%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1.0 0.0\n' > "$tmp/cx.mtx"
expect 3 'cx.mtx:1: .*complex' -- --device=cpu "$tmp/cx.mtx"
expect 3 'cannot open .*nosuch.mtx' -- --device=cpu "$tmp/nosuch.mtx"
expect 3 'bad-spec' -- --device=cpu --generate=bad-spec
expect 3 'unknown SpMV backend "nosuch"' -- --device=cpu --spmv=nosuch "$data/nos4.mtx"
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' > "$tmp/b3.mtx"
expect 3 'right-hand side .* has 3 entries, but A has 100 rows' -- \
    --device=cpu -b "$tmp/b3.mtx" "$data/nos4.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n1 2 2.0\n' > "$tmp/ns.mtx"
expect 3 'not symmetric' -- --device=cpu --check-symmetry "$tmp/ns.mtx"

# -o, -b and --x0 round trip: solving again from the solution takes no iteration
expect 0 'converged' -- --device=cpu --tol=1e-12 --rhs=random -o "$tmp/x.mtx" "$data/Trefethen_500.mtx"
"$cg" --device=cpu --quiet --rhs=random -o "$tmp/x.mtx" --tol=1e-12 "$data/Trefethen_500.mtx"
expect 0 'iterations +0$' -- --device=cpu --rhs=random --tol=1e-10 --x0="$tmp/x.mtx" \
    "$data/Trefethen_500.mtx"

# JSON report: parses and holds every documented field
if command -v python3 >/dev/null; then
    "$cg" --device=cpu --quiet --json "$tmp/r.json" "$data/gr_30_30.mtx"
    python3 - "$tmp/r.json" <<'PYEOF' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
need = {"matrix": ["name", "n", "nnz"], "solver": ["backend", "precision", "tol", "maxit"],
        "result": ["converged", "reason", "iterations", "true_relres", "recurrence_relres"],
        "time": ["setup_s", "solve_s"], "device": ["kind", "name"]}
missing = [f"{k}.{f}" for k, fs in need.items() for f in fs if f not in r.get(k, {})]
assert not missing, f"missing JSON fields: {missing}"
assert r["matrix"] == {"name": "gr_30_30.mtx", "n": 900, "nnz": 7744}, r["matrix"]
assert r["result"]["converged"] is True and r["result"]["true_relres"] <= 1e-8
assert r["result"]["reason"] == "MPCG_CONVERGED_RTOL"
print("ok: JSON report has every field")
PYEOF
fi

# stored results (hypre .saved style): iterations exact (the CPU path is deterministic and
# independent of the thread count), true residual within a factor of 2
while read -r name iters relres; do
    case $name in '#'*|'') continue;; esac
    "$cg" --device=cpu --quiet --json "$tmp/s.json" "$data/$name.mtx"
    got=`python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["result"]; print(r["iterations"], r["true_relres"])' "$tmp/s.json"`
    set -- $got
    if [ "$1" != "$iters" ] || ! python3 -c "import sys; sys.exit(not (0.5 <= $2 / $relres <= 2))"; then
        echo "FAIL: $name: got iterations $1 relres $2, stored $iters $relres"; fail=1
    else
        echo "ok: $name matches the stored result ($iters iterations)"
    fi
done < "$top_srcdir/test/data/cgsolve_expected.txt"
exit $fail
