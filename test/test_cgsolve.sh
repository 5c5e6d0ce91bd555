#!/bin/sh
# test/test_cgsolve.sh: the cgsolve command: exit statuses, messages, reports, stored results
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:=.}" "${top_builddir:=.}"
cg="$top_builddir/cgsolve"
data="$top_srcdir/test/data"
tmp=`mktemp -d` || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
# auto's cache (the default --cache-dir) goes to the temporary directory, not the user's
XDG_CACHE_HOME="$tmp/xdg"; export XDG_CACHE_HOME

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
expect 0 '^cpu +fp64,fp32,mixed +cpu +yes' -- --list-backends
expect 2 'no matrix: give A.mtx or --generate' --
# several right-hand sides: block CG (docs/block.md); -b reads n x S, -o writes n x S
expect 0 'block +3 right-hand sides, block.method=block' -- --device=cpu --rhs=random:3 "$data/nos4.mtx"
expect 0 'column 1 +converged' -- --device=cpu --rhs=random:3 -O block.method=independent "$data/nos4.mtx"
expect 2 '--rhs=ones:65: S must be a whole number in \[1, 64\]' -- --rhs=ones:65 "$data/nos4.mtx"
expect 0 'column 2 +converged' -- --device=cpu --rhs=random:3 -o "$tmp/X.mtx" "$data/nos4.mtx"
expect 0 'block +3 right-hand sides' -- --device=cpu -b "$tmp/X.mtx" "$data/nos4.mtx"
expect 3 'initial guess .*X.mtx has 3 columns, but B has 2' -- --device=cpu --rhs=random:2 --x0="$tmp/X.mtx" "$data/nos4.mtx"
# --ooc only with a backend that streams (a CPU-only build has none: the same refusal)
expect 2 '--ooc streams the matrix with an out-of-core SpMV backend' -- --ooc "$data/nos4.mtx"
expect 2 'out-of-core SpMV backend.*; not cpu' -- --ooc --spmv=cpu "$data/nos4.mtx"
if "$cg" --list-backends | grep -q '^gather .*out-of-core'; then
    expect 2 '--ooc streams the matrix to a GPU' -- --ooc --spmv=gather --device=cpu "$data/nos4.mtx"
fi
expect 2 'unknown option --nosuch' -- --nosuch "$data/nos4.mtx"
expect 2 'option --tol needs a value' -- "$data/nos4.mtx" --tol
expect 2 '--tol=2: expected a number in \(0, 1\)' -- --tol=2 "$data/nos4.mtx"
# --atol: ||b - A x|| <= max(tol ||b||, atol); ||b|| = 10 here, so atol = 1e-3 decides
expect 2 '--atol=-1: expected a finite number >= 0' -- --atol=-1 "$data/nos4.mtx"
expect 2 '--atol=inf: expected a finite number >= 0' -- --atol=inf "$data/nos4.mtx"
expect 0 'result +converged \(converged: residual below the absolute tolerance atol\)' -- \
    --device=cpu --tol=1e-12 --atol=1e-3 "$data/nos4.mtx"
expect 0 'tol 1e-12, atol 0.001$' -- --device=cpu --tol=1e-12 --atol=1e-3 "$data/nos4.mtx"
expect 0 'result +converged \(converged: relative residual below tol\)' -- \
    --device=cpu --atol=1e-30 "$data/nos4.mtx"
expect 2 '--rhs=zeros: expected ones, random or Aones' -- --rhs=zeros "$data/nos4.mtx"
expect 2 'give either A.mtx or --generate, not both' -- --generate=poisson2d:4 "$data/nos4.mtx"
expect 2 '--precision=fp16: expected fp64, fp32 or mixed' -- --precision=fp16 "$data/nos4.mtx"
# fp32 and mixed run; mixed reaches fp64's tolerance and says its strategy
expect 0 'precision fp32' -- --device=cpu --precision=fp32 --precond=none --tol=1e-5 "$data/nos4.mtx"
expect 0 'precision mixed \(reliable\)' -- --device=cpu --precision=mixed --tol=1e-10 "$data/nos4.mtx"
expect 0 'precision mixed \(refinement\)' -- --device=cpu --precision=mixed -O mixed.strategy=refinement "$data/nos4.mtx"
expect 2 "mixed.strategy" -- --device=cpu --precision=mixed -O mixed.strategy=fast "$data/nos4.mtx"
expect 0 'precision fp64' -- --device=cpu --precision=fp64 "$data/nos4.mtx"

# solves
expect 0 'result +converged' -- --device=cpu "$data/gr_30_30.mtx"
expect 0 '^device +cpu' -- --device=cpu --rhs=random --seed=7 "$data/nos4.mtx"
# the GPU notice: never in a build without CUDA (auto's GPU candidate is "none"); in a CUDA
# build on a machine without a GPU, one line with -v only
expect 0 'result +converged' -- "$data/mesh2em5.mtx"
if "$cg" --list-backends | grep -q 'first none'; then
    "$cg" -v "$data/nos4.mtx" >"$tmp/out" 2>"$tmp/err"
    if grep -q 'GPU' "$tmp/err"; then echo "FAIL: a GPU notice in a build without CUDA"; cat "$tmp/err"; fail=1
    else echo "ok: no GPU notice in a build without CUDA, even with -v"; fi
elif "$cg" --device=auto "$data/nos4.mtx" | grep -q '^device +cpu'; then
    "$cg" "$data/nos4.mtx" >"$tmp/out" 2>"$tmp/err"
    if grep -q 'GPU' "$tmp/err"; then echo "FAIL: a GPU notice without -v"; cat "$tmp/err"; fail=1; fi
    expect 0 'no usable GPU found, running on the CPU' -- -v "$data/nos4.mtx"
fi
expect 0 'iterations +[0-9]+' -- --device=cpu --rhs=Aones --tol=1e-10 "$data/bcsstk05.mtx"
expect 0 'matrix +poisson2d:16: n = 256, nnz = 1216' -- --device=cpu --generate=poisson2d:16
expect 0 'iteration +3  recurrence relres' -- --device=cpu --monitor=3 "$data/nos4.mtx"
expect 1 'NOT converged \(diverged: maximum number of iterations reached\)' -- \
    --device=cpu --maxit=2 "$data/fv1.mtx"
"$cg" --device=cpu --quiet "$data/nos4.mtx" >"$tmp/out" 2>&1 || { echo "FAIL: --quiet run"; fail=1; }
if [ -s "$tmp/out" ]; then echo "FAIL: --quiet printed something"; cat "$tmp/out"; fail=1; fi

# -o -: x on stdout as Matrix Market, byte for byte the file -o FILE writes; the summary and the
# monitor on stderr; -o - beside --json=- is a usage error
"$cg" --device=cpu --rhs=random --monitor=5 -o - "$data/nos4.mtx" >"$tmp/xo.mtx" 2>"$tmp/xo.err"
rc=$?
"$cg" --device=cpu --quiet --rhs=random -o "$tmp/xf.mtx" "$data/nos4.mtx"
if [ $rc -eq 0 ] && cmp -s "$tmp/xo.mtx" "$tmp/xf.mtx" && grep -Eq '^result +converged' "$tmp/xo.err" &&
   grep -Eq 'iteration +5 ' "$tmp/xo.err"; then
    echo "ok: -o - writes x alone to stdout, the summary and the monitor to stderr"
else
    echo "FAIL: -o - (exit $rc)"; head -3 "$tmp/xo.mtx"; cat "$tmp/xo.err"; fail=1
fi
expect 2 '-o - and --json=- both write to stdout' -- -o - --json=- "$data/nos4.mtx"
# a bad MPCG_OPTIONS is a usage error, as a bad -O (exit 2, before the matrix is read)
MPCG_OPTIONS=nosuch.key=1; export MPCG_OPTIONS
expect 2 "MPCG_OPTIONS: unknown option 'nosuch\.key'" -- --device=cpu "$tmp/missing.mtx"
MPCG_OPTIONS=cg.variant=bogus
expect 2 'MPCG_OPTIONS: .*cg\.variant=bogus' -- --device=cpu --batch "$data/nos4.mtx"
MPCG_OPTIONS=cg.variant=host
expect 0 'result +converged' -- --device=cpu "$data/nos4.mtx"
unset MPCG_OPTIONS
# messages: the text alone; -v adds the library's source location and call frames
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n3 1 2.0\n' > "$tmp/bad.mtx"
for args in "$tmp/bad.mtx" "--precond=bjacobi:99 $data/nos4.mtx" "-O nosuch=1 $data/nos4.mtx" \
            "--rhs=random:2 --precision=fp32 $data/nos4.mtx" "$tmp/missing.mtx"; do
    "$cg" --device=cpu $args >/dev/null 2>"$tmp/err"
    if grep -Eq '[a-z_]+\.c:[0-9]+: [a-z_]+:|called from' "$tmp/err"; then
        echo "FAIL: cgsolve $args: a source location or frame without -v"; cat "$tmp/err"; fail=1
    fi
done
expect 3 'called from .*mpcg_matrix_read_mm' -- --device=cpu -v "$tmp/bad.mtx"
# backends and options are described by what they do (the papers are cited in docs/)
if "$cg" --list-backends | grep -Eqi 'seed [0-9]|seed'"'"'s' ||
   "$cg" --help-options | grep -Eqi 'seed [0-9]|seed'"'"'s|fastest to solution'; then
    echo "FAIL: --list-backends or --help-options cite the papers"; fail=1
else
    echo "ok: --list-backends and --help-options describe, not cite"
fi
# fp32 beyond its reach: stagnation, with the floor named and mixed suggested
expect 1 'hint +fp32 stops near 1e-7 x cond\(A\) \(cond\(A\) = 1e3: near 1e-4\)' -- \
    --device=cpu --precision=fp32 "$data/bcsstk05.mtx"
expect 1 '--precision=mixed reaches fp64' -- --device=cpu --precision=fp32 "$data/bcsstk05.mtx"

# bad input: exit 3 with file:line: for malformed files
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n3 1 2.0\n' > "$tmp/bad.mtx"
expect 3 'bad.mtx:4: .*row index 3 out of range' -- --device=cpu "$tmp/bad.mtx"
printf '%%%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1.0 0.0\n' > "$tmp/cx.mtx"
expect 3 'cx.mtx:1: .*complex' -- --device=cpu "$tmp/cx.mtx"
expect 3 'cannot open .*nosuch.mtx' -- --device=cpu "$tmp/nosuch.mtx"
expect 2 '--generate=bad-spec: expected NAME:N' -- --device=cpu --generate=bad-spec
expect 2 "unknown matrix generator in spec 'nosuch:4'" -- --device=cpu --generate=nosuch:4
expect 2 "poisson3d:0" -- --device=cpu --generate=poisson3d:0
expect 2 '--spmv=nosuch: unknown SpMV backend \(this build has: auto, cpu' -- \
    --device=cpu --spmv=nosuch "$data/nos4.mtx"
expect 2 '--device=gpu: expected auto, cpu, cuda or cuda:N' -- --device=gpu "$data/nos4.mtx"
expect 2 '--device=cuda:x: expected auto, cpu, cuda or cuda:N' -- --device=cuda:x "$data/nos4.mtx"
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' > "$tmp/b3.mtx"
expect 3 'b3.mtx:2: 3 rows, but 100 expected' -- \
    --device=cpu -b "$tmp/b3.mtx" "$data/nos4.mtx"
# sizes from what is read: a -b file that declares 2e9 rows is refused at its size line, before
# its values are read or allocated (it took 20 s and 15.8 GB); so is a matrix that declares 2e9
# rows and holds 3 entries (52 s, then the OOM killer), under a 4 GiB address-space limit
printf '%%%%MatrixMarket matrix array real general\n2000000000 1\n1\n2\n3\n' > "$tmp/bhuge.mtx"
expect 3 'bhuge.mtx:2: 2000000000 rows, but 100 expected' -- \
    --device=cpu -b "$tmp/bhuge.mtx" "$data/nos4.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 3\n1 1 4\n2 2 4\n3 3 4\n' \
    > "$tmp/ahuge.mtx"
# (not where cgsolve cannot start under that limit: AddressSanitizer's shadow needs more)
if (ulimit -v 4194304 && "$cg" --version) >/dev/null 2>&1; then
    start=`date +%s`
    (ulimit -v 4194304; "$cg" --device=cpu "$tmp/ahuge.mtx") >"$tmp/out" 2>&1
    rc=$? took=$((`date +%s` - start))
    if [ $rc -eq 4 ] && [ $took -le 2 ] &&
       grep -q 'ahuge.mtx:2: the size line declares 2000000000 rows, but the file holds 3 entries' "$tmp/out"; then
        echo "ok: cgsolve ahuge.mtx (2e9 rows declared, 3 entries) -> $rc in ${took} s"
    else
        echo "FAIL: cgsolve ahuge.mtx exited $rc after $took s"; cat "$tmp/out"; fail=1
    fi
fi
# real hermitian is symmetric; bzip2 data is refused by name
sed 's/symmetric/hermitian/' "$data/mm/coord_real_symmetric.mtx" > "$tmp/herm.mtx"
expect 0 'converged' -- --device=cpu "$tmp/herm.mtx"
printf 'BZh91AY&SY\001\002\003' > "$tmp/a.mtx.bz2"
expect 3 'a.mtx.bz2 is bzip2-compressed: decompress it first \(bunzip2\)' -- --device=cpu "$tmp/a.mtx.bz2"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n1 2 2.0\n' > "$tmp/ns.mtx"
expect 3 'not symmetric' -- --device=cpu --check-symmetry "$tmp/ns.mtx"

printf '%%%%MatrixMarket matrix array real general\n3 1\n0\n0\n1\n' > "$tmp/x3.mtx"
expect 3 'x3.mtx:2: 3 rows, but 100 expected' -- \
    --device=cpu --x0="$tmp/x3.mtx" "$data/nos4.mtx"
printf '%%%%MatrixMarket matrix array real general\n100 1\n' > "$tmp/bnan.mtx"
for i in 1 2 3 4 5 6 7 8 9 10; do echo nan; done >> "$tmp/bnan.mtx"
expect 3 "bnan.mtx:3: value 'nan' is not a number" -- --device=cpu -b "$tmp/bnan.mtx" "$data/nos4.mtx"

# solver robustness through the command: each reason reported, with its exit status
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1.0\n2 2 -2.0\n' > "$tmp/ind.mtx"
expect 1 'NOT converged \(diverged: p\^T A p < 0, the matrix is not positive definite\)' -- \
    --device=cpu --precond=none "$tmp/ind.mtx"
# the default (auto: Jacobi here) refuses a diagonal entry <= 0 at setup, naming the row
expect 3 'precond jacobi: row 2: diagonal entry -2 <= 0 \(A is not SPD\)' -- --device=cpu "$tmp/ind.mtx"
# indefinite, found at the iteration where p^T A p < 0 shows (3 here, not at the start)
printf '%%%%MatrixMarket matrix coordinate real symmetric\n5 5 5\n1 1 1\n2 2 2\n3 3 3\n4 4 4\n5 5 -0.05\n' \
    > "$tmp/ind5.mtx"
expect 1 'the matrix is not positive definite' -- --device=cpu --precond=none "$tmp/ind5.mtx"
expect 1 '^iterations +3$' -- --device=cpu --precond=none "$tmp/ind5.mtx"
printf '%%%%MatrixMarket matrix array real general\n2 1\n0\n0\n' > "$tmp/b0.mtx"
expect 0 'converged \(converged: b = 0, so x = 0\)' -- --device=cpu --precond=none -b "$tmp/b0.mtx" "$tmp/ind.mtx"

# a non-symmetric A: one warning line on stderr (an error with --check-symmetry, above)
"$cg" --device=cpu --precond=none --maxit=5 "$tmp/ns.mtx" >"$tmp/out" 2>"$tmp/err"
if [ `grep -c 'warning' "$tmp/err"` -ne 1 ] ||
   ! grep -q '^cgsolve: warning: matrix is not symmetric: A(1, 2) = 2 but A(2, 1) = 0' "$tmp/err"; then
    echo "FAIL: no single non-symmetry warning on stderr"; cat "$tmp/err"; fail=1
else
    echo "ok: a non-symmetric A gets one warning line"
fi
"$cg" --device=cpu "$data/nos4.mtx" >"$tmp/out" 2>"$tmp/err"
if grep -q 'warning' "$tmp/err"; then echo "FAIL: warning for a symmetric A"; cat "$tmp/err"; fail=1; fi

# --device-memory-limit: byte counts with K/M/G; no effect on the CPU (GPU: test_device_limit)
expect 2 '--device-memory-limit=12X: expected a byte count' -- --device-memory-limit=12X "$data/nos4.mtx"
expect 2 '--device-memory-limit=-1: expected a byte count' -- --device-memory-limit=-1 "$data/nos4.mtx"
expect 2 '--device-memory-limit=99999999999G: expected a byte count' -- \
    --device-memory-limit=99999999999G "$data/nos4.mtx"
expect 0 'has no effect on the CPU' -- --device=cpu --device-memory-limit=64K "$data/nos4.mtx"

# --check-interval: K >= 0; the iterations and the solution do not depend on it (on a GPU the
# device stops by itself; on the CPU K is ignored). adaptive (where built) or cpu: deterministic,
# so x is compared bit for bit (adaptive's CPU emulation where there is no GPU)
expect 2 '--check-interval=-1: expected a non-negative integer' -- --check-interval=-1 "$data/nos4.mtx"
expect 2 '--check-interval=x: expected a non-negative integer' -- --check-interval=x "$data/nos4.mtx"
spmv=
if "$cg" --list-backends | grep -q '^adaptive '; then spmv=--spmv=adaptive; fi # not in --without-cuda
for k in 1 7 0; do
    "$cg" --check-interval=$k $spmv --rhs=random --seed=3 -o "$tmp/x$k.mtx" "$data/fv1.mtx" >"$tmp/k$k" 2>&1 ||
        { echo "FAIL: cgsolve --check-interval=$k"; cat "$tmp/k$k"; fail=1; }
done
if [ "`grep '^iterations' "$tmp/k1"`" = "`grep '^iterations' "$tmp/k7"`" ] &&
   [ "`grep '^iterations' "$tmp/k1"`" = "`grep '^iterations' "$tmp/k0"`" ] &&
   grep -q '^iterations' "$tmp/k1" && cmp -s "$tmp/x1.mtx" "$tmp/x7.mtx"; then
    echo "ok: --check-interval=1, 7, 0 give the same iterations and the same x"
else
    echo "FAIL: --check-interval changed the result"; grep -h '^iterations' "$tmp"/k*; fail=1
fi

# -O KEY=VALUE and --help-options (the keys, defaults and ranges come from the library)
expect 0 '^cg\.variant +auto +auto, host' -- --help-options
expect 0 '^cg\.check_interval +0 ' -- --help-options
expect 0 'result +converged' -- --device=cpu -O cg.check_interval=4 -O cg.variant=auto "$data/nos4.mtx"
expect 2 "unknown option 'nosuch\.key'; the options are: .*cg\.variant" -- \
    --device=cpu -O nosuch.key=1 "$data/nos4.mtx"
expect 2 'cg\.variant=bogus: expected one of auto, host' -- --device=cpu -O cg.variant=bogus "$data/nos4.mtx"
expect 2 'cg\.check_interval.*-1' -- --device=cpu -O cg.check_interval=-1 "$data/nos4.mtx"
expect 2 '-O cg\.variant: expected KEY=VALUE' -- --device=cpu -O cg.variant "$data/nos4.mtx"
# a bad -O fails before the matrix is read (a missing file would otherwise say exit 3)
expect 2 "unknown option 'nosuch'" -- --device=cpu -O nosuch=1 "$tmp/missing.mtx"
expect 2 '--info describes A with the default options' -- --info -O cg.variant=host "$data/nos4.mtx"

# -v: the CG variant that ran, and why (JSON: solver.variant, solver.variant_reason)
expect 0 '^variant ' -- --device=cpu -v "$data/nos4.mtx"

# --batch (docs/batched.md): the small systems of a directory (its *.mtx and *.mtx.gz,
# sorted by name; other files ignored) or of a comma-separated list, solved by batched CG
mkdir "$tmp/batch" "$tmp/nomtx" "$tmp/batchbad"
cp "$data/bcsstk05.mtx" "$tmp/batch/"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 4\n2 1 1\n2 2 3\n' > "$tmp/batch/a2.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 2\n2 1 -1\n2 2 2\n3 2 -1\n3 3 2\n' \
    > "$tmp/batch/b3.mtx"
echo 'not a matrix' > "$tmp/batch/notes.txt"
echo 'not a matrix' > "$tmp/nomtx/notes.txt"
expect 0 '^result +3 of 3 systems converged$' -- --device=cpu --batch "$tmp/batch"
expect 0 '^matrix +batch .*/batch: 3 systems, 158 rows total, 2434 nnz total, largest n = 153$' -- \
    --device=cpu --batch="$tmp/batch"
expect 0 '^reasons +3 converged: relative residual below tol$' -- --device=cpu --batch="$tmp/batch"
expect 0 '^result +2 of 2 systems converged$' -- --device=cpu --batch="$tmp/batch/b3.mtx,$data/nos4.mtx"
expect 0 '^result +3 of 3 systems converged$' -- --device=cpu --precond=jacobi --rhs=random --seed=5 \
    --batch "$tmp/batch"
expect 1 '^system 2 +bcsstk05.mtx: n = 153, NOT converged \(diverged: maximum number' -- \
    --device=cpu -v --maxit=5 --batch "$tmp/batch"
# -v: a line per system, in name order; bcsstk05 takes the iterations of its single solve with
# the same default preconditioner (auto: Jacobi here; within 2 + 5 %, as test_batch allows: the
# two CG codes may round differently)
"$cg" --device=cpu -v --batch "$tmp/batch" >"$tmp/out" 2>&1
"$cg" --device=cpu "$data/bcsstk05.mtx" >"$tmp/one" 2>&1
it=`sed -n 's/^iterations  *//p' "$tmp/one"`
bit=`sed -n 's/^system 2  *bcsstk05.mtx: n = 153, converged .*, \([0-9]*\) iterations, true relres .*/\1/p' "$tmp/out"`
if [ "`grep -c '^system ' "$tmp/out"`" -eq 3 ] && grep -Eq '^system 0 +a2.mtx: n = 2, converged' "$tmp/out" &&
   grep -Eq '^system 1 +b3.mtx: n = 3, converged' "$tmp/out" && [ -n "$it" ] && [ -n "$bit" ] &&
   [ $(( (bit - it) * (bit - it) * 400 )) -le $(( (40 + it) * (40 + it) )) ]; then
    echo "ok: cgsolve --batch -v: a line per system; bcsstk05 $bit iterations, single solve $it"
else
    echo "FAIL: cgsolve --batch -v lines (single solve of bcsstk05: $it iterations)"; cat "$tmp/out"; fail=1
fi
"$cg" --device=cpu --quiet --batch "$tmp/batch" >"$tmp/out" 2>&1 || { echo "FAIL: --batch --quiet"; fail=1; }
if [ -s "$tmp/out" ]; then echo "FAIL: --batch --quiet printed something"; cat "$tmp/out"; fail=1; fi
expect 0 '"batch": \{' -- --device=cpu --json=- --batch "$tmp/batch"
if command -v python3 >/dev/null; then
    "$cg" --device=cpu --quiet --maxit=5 --json "$tmp/b.json" --batch "$tmp/batch"
    python3 - "$tmp/b.json" <<'PYEOF' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
b = r["batch"]
assert r["mode"] == "batch" and r["solver"]["precond"] == "jacobi" and r["solver"]["maxit"] == 5, r
assert (b["k"], b["rows"], b["nnz"], b["largest_n"], b["converged"]) == (3, 158, 2434, 153, 2), b
assert b["reasons"] == {"MPCG_CONVERGED_RTOL": 2, "MPCG_DIVERGED_MAX_ITER": 1}, b["reasons"]
assert b["iterations_max"] == 5 and b["worst_system"] == "bcsstk05.mtx" and b["solve_s"] >= 0, b
s = b["systems"]
assert [x["name"] for x in s] == ["a2.mtx", "b3.mtx", "bcsstk05.mtx"], s
assert [x["n"] for x in s] == [2, 3, 153] and s[2]["reason"] == "MPCG_DIVERGED_MAX_ITER", s
assert [x["maxit"] for x in s] == [5, 5, 5], s
assert all(x["true_relres"] <= 1e-8 for x in s[:2]) and s[2]["true_relres"] == b["worst_true_relres"]
assert r["device"]["kind"] == "cpu" and r["warnings"] == [], r
print("ok: --batch JSON report: batch and its systems")
PYEOF
fi
# one set of defaults (docs/options.md): --batch's preconditioner is auto, as a single solve's:
# Jacobi where the diagonal varies, none where every diagonal entry is one value (b3.mtx: 2)
expect 0 'precond jacobi \(auto\)' -- --device=cpu --batch "$tmp/batch"
expect 0 'precond none \(auto\)' -- --device=cpu --batch "$tmp/batch/b3.mtx"
expect 0 'precond none,' -- --device=cpu --precond=none --batch "$tmp/batch"
expect 0 '^result +3 of 3 systems converged$' -- --device=cpu --precond=auto --batch "$tmp/batch"
# the iteration limit used, in the JSON: --maxit, else max(100, 10 n) (per system for --batch)
if command -v python3 >/dev/null; then
    "$cg" --device=cpu --quiet --json "$tmp/bm.json" --batch "$tmp/batch"
    "$cg" --device=cpu --quiet --json "$tmp/m1.json" "$data/nos4.mtx"
    "$cg" --device=cpu --quiet --rhs=random:3 --json "$tmp/m3.json" "$data/nos4.mtx"
    "$cg" --device=cpu --quiet --maxit=7 --json "$tmp/m7.json" "$data/nos4.mtx"
    python3 - "$tmp/bm.json" "$tmp/m1.json" "$tmp/m3.json" "$tmp/m7.json" <<'PYEOF' || fail=1
import json, sys
b, m1, m3, m7 = (json.load(open(f)) for f in sys.argv[1:5])
assert b["solver"]["maxit"] == 1530, b["solver"]
assert [x["maxit"] for x in b["batch"]["systems"]] == [100, 100, 1530], b["batch"]["systems"]
assert m1["solver"]["maxit"] == 1000 and m3["solver"]["maxit"] == 1000, (m1["solver"], m3["solver"])
assert m7["solver"]["maxit"] == 7, m7["solver"]
assert m1["solver"]["precond"] == "jacobi" and b["solver"]["precond"] == "jacobi"
print("ok: JSON maxit is the limit used (single, block, batch), precond auto everywhere")
PYEOF
fi
# --batch: usage errors (exit 2) and bad input naming the file (exit 3)
expect 2 '--batch takes no -b' -- --batch "$tmp/batch" -b "$tmp/b3.mtx"
expect 2 '--batch takes no --precision=fp32' -- --batch "$tmp/batch" --precision=fp32
expect 2 '--precond=chebyshev: --batch takes auto, none or jacobi' -- --batch "$tmp/batch" --precond=chebyshev
expect 2 '--batch takes no --rhs=Aones' -- --batch "$tmp/batch" --rhs=Aones
expect 2 '--batch takes no --rhs=KIND:S' -- --batch "$tmp/batch" --rhs=random:2
expect 2 '--batch takes no --atol' -- --batch "$tmp/batch" --atol=1e-3
expect 2 '--batch takes no --plot' -- --batch "$tmp/batch" --plot="$tmp/c.svg"
expect 2 '--batch takes no -o' -- --batch "$tmp/batch" -o "$tmp/x.mtx"
expect 2 '--batch takes no --spmv' -- --batch "$tmp/batch" --spmv=cpu
expect 2 '--batch takes no A.mtx or --generate' -- --batch "$tmp/batch" "$data/nos4.mtx"
expect 2 '--batch=.*a2.mtx,: an empty file name in the list' -- --batch="$tmp/batch/a2.mtx,"
expect 3 'nomtx: no .mtx or .mtx.gz file in the directory' -- --device=cpu --batch "$tmp/nomtx"
cp "$tmp/batch/a2.mtx" "$tmp/batchbad/"
echo 'garbage' > "$tmp/batchbad/junk.mtx"
expect 3 'batchbad/junk.mtx:1: missing banner' -- --device=cpu --batch "$tmp/batchbad"
printf '%%%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n' > "$tmp/rect.mtx"
expect 3 'rect.mtx:2: the matrix is not square' -- --device=cpu --batch "$tmp/batch/a2.mtx,$tmp/rect.mtx"
expect 3 'cannot open .*nosuch.mtx' -- --device=cpu --batch "$tmp/batch/a2.mtx,$tmp/nosuch.mtx"

# --threads=N: the CPU path's OpenMP threads (the context reports them where built with OpenMP)
expect 0 'result +converged' -- --device=cpu --threads=2 "$data/nos4.mtx"
expect 0 '^device +cpu \(1 OpenMP thread\)|^device +cpu$' -- --device=cpu --threads=1 "$data/nos4.mtx"
expect 2 '--threads=0: expected an integer in \[1, 65536\]' -- --threads=0 "$data/nos4.mtx"
expect 2 '--threads=x: expected an integer' -- --threads=x "$data/nos4.mtx"

# -o and --json paths are checked before anything is read or solved: a file that does not
# exist (it would be read after the path check) shows the path failed first; an existing
# report file is not truncated by the check
expect 3 '-o .*nodir/x\.mtx: cannot write' -- --device=cpu -o "$tmp/nodir/x.mtx" "$tmp/missing.mtx"
expect 3 '--json .*nodir/r\.json: cannot write' -- --device=cpu --json "$tmp/nodir/r.json" "$tmp/missing.mtx"
expect 3 "-o $tmp: cannot write" -- --device=cpu -o "$tmp" "$tmp/missing.mtx"
echo keep >"$tmp/keep.json"
"$cg" --device=cpu --json "$tmp/keep.json" "$tmp/missing.mtx" >/dev/null 2>&1
if [ "`cat "$tmp/keep.json"`" != keep ]; then echo "FAIL: the path check changed $tmp/keep.json"; fail=1; fi
"$cg" --device=cpu -o "$tmp/new.mtx" "$tmp/missing.mtx" >/dev/null 2>&1
if [ -e "$tmp/new.mtx" ]; then echo "FAIL: the path check left $tmp/new.mtx behind"; fail=1; fi

# --json=- --monitor: stdout is the JSON alone, the monitor lines go to stderr
if command -v python3 >/dev/null; then
    "$cg" --device=cpu --json=- --monitor=1 "$data/nos4.mtx" >"$tmp/mon.json" 2>"$tmp/mon.err"
    if python3 -c 'import json,sys; json.load(sys.stdin)' <"$tmp/mon.json" &&
       grep -Eq 'iteration +1  recurrence relres' "$tmp/mon.err"; then
        echo "ok: --json=- --monitor=1 keeps stdout JSON, the monitor on stderr"
    else
        echo "FAIL: --json=- --monitor=1"; cat "$tmp/mon.json" "$tmp/mon.err"; fail=1
    fi
fi

# --history and --plot: checked before the matrix is read; no --info; the CSV has a header and
# one line an iteration (CPU), the first the initial residual, the last the final true
# residual; the SVG is well-formed XML, self-contained, with a circle for each true residual
expect 3 '--history .*nodir/h\.csv: cannot write' -- --device=cpu --history="$tmp/nodir/h.csv" "$tmp/missing.mtx"
expect 3 '--plot .*nodir/p\.svg: cannot write' -- --device=cpu --plot="$tmp/nodir/p.svg" "$tmp/missing.mtx"
expect 2 '--info solves nothing' -- --info --plot="$tmp/p.svg" "$data/nos4.mtx"
"$cg" --device=cpu --quiet --precision=mixed --tol=1e-12 --atol=1e-9 --history="$tmp/h.csv" \
    --plot="$tmp/p.svg" --json "$tmp/h.json" "$data/bcsstk05.mtx" || { echo "FAIL: --history --plot exited $?"; fail=1; }
if command -v python3 >/dev/null; then
    python3 - "$tmp/h.csv" "$tmp/p.svg" "$tmp/h.json" <<'PYEOF' || fail=1
import csv, json, math, sys
import xml.etree.ElementTree as ET
rows = list(csv.reader(open(sys.argv[1])))
r = json.load(open(sys.argv[3]))["result"]
assert rows[0] == ["iteration", "relres", "true_relres", "time_s"], rows[0]
data = rows[1:]
assert len(data) == r["iterations"] + 1, (len(data), r["iterations"])
assert [int(d[0]) for d in data] == list(range(len(data)))
assert data[0][1:3] == ["1", "1"], data[0]
assert float(data[-1][2]) == r["true_relres"] and float(data[-1][1]) == r["recurrence_relres"]
times = [float(d[3]) for d in data]
assert all(b >= a >= 0 for a, b in zip(times, times[1:])), "time goes back"
trues = [d for d in data if d[2] != ""]
# mixed reliable updates: the initial, the fp64 head's end, each replacement and the final
assert len(trues) >= r["residual_replacements"] + 2, (len(trues), r)
svg = open(sys.argv[2], encoding="utf-8").read()
root = ET.fromstring(svg)
ns = "{http://www.w3.org/2000/svg}"
assert root.tag == ns + "svg", root.tag
for bad in ("<script", "href", "url(", "@import", "<image", "@font-face"):
    assert bad not in svg, "not self-contained: " + bad
title = root.find(ns + "title").text
assert "bcsstk05.mtx" in title and "cpu" in title and "mixed" in title, title
circles = root.findall(".//" + ns + "circle")
assert len(circles) == len(trues) + 1, (len(circles), len(trues))   # + the legend's
paths = root.findall(".//" + ns + "path")
assert len(paths) == 1 and paths[0].get("d").startswith("M"), paths
texts = "".join(root.itertext())
assert "stop at" in texts and "MPCG_CONVERGED_ATOL" in texts, texts
print("ok: --history CSV (%d entries, %d true residuals) and --plot SVG" % (len(data), len(trues)))
PYEOF
else
    grep -q '</svg>' "$tmp/p.svg" && head -n 1 "$tmp/h.csv" | grep -q '^iteration,relres,true_relres,time_s$' ||
        { echo "FAIL: --history / --plot"; fail=1; }
fi
# several right-hand sides: every column's history (the CSV's first field the column, a curve
# and circles per column in the SVG), the monitor's line per column, the JSON's limit used
expect 0 'iteration +5  column  2  recurrence relres' -- --device=cpu --rhs=random:3 --monitor=5 \
    "$data/nos4.mtx"
for m in block independent; do
    "$cg" --device=cpu --quiet --rhs=random:3 -O block.method=$m --history="$tmp/hb.csv" \
        --plot="$tmp/pb.svg" --json "$tmp/hb.json" "$data/bcsstk05.mtx" ||
        { echo "FAIL: block --history --plot exited $?"; fail=1; }
    if command -v python3 >/dev/null; then
        python3 - "$tmp/hb.csv" "$tmp/pb.svg" "$tmp/hb.json" $m <<'PYEOF' || fail=1
import csv, json, sys
import xml.etree.ElementTree as ET
rows = list(csv.reader(open(sys.argv[1])))
cols = json.load(open(sys.argv[3]))["block"]["columns"]
assert rows[0] == ["column", "iteration", "relres", "true_relres", "time_s"], rows[0]
trues = 0
for j, c in enumerate(cols):
    d = [r[1:] for r in rows[1:] if r[0] == str(j)]
    assert len(d) == c["iterations"] + 1, (j, len(d), c["iterations"])
    assert [int(e[0]) for e in d] == list(range(len(d))), j
    assert d[0][1:3] == ["1", "1"], d[0]
    assert float(d[-1][2]) == c["true_relres"] and float(d[-1][1]) == c["recurrence_relres"], (d[-1], c)
    trues += sum(1 for e in d if e[2] != "")
root = ET.fromstring(open(sys.argv[2], encoding="utf-8").read())
ns = "{http://www.w3.org/2000/svg}"
paths = root.findall(".//" + ns + "path")
assert len(paths) == len(cols), len(paths)
assert len({p.get("stroke") for p in paths}) == len(cols), "a colour per column"
assert len(root.findall(".//" + ns + "circle")) == trues + 1, trues   # + the legend's
assert "column" in "".join(root.itertext())
print("ok: block.method=%s: --history and --plot of every column (%d true residuals)" % (sys.argv[4], trues))
PYEOF
    fi
done

# the progress line: off when stderr is not a terminal (no carriage return, no escape), on a
# terminal (script(1) gives one) shown once the solve has run a quarter of a second, then erased
# before the summary; off with --quiet and with --monitor
esc=`printf '\033'`; cr=`printf '\r'`
"$cg" --device=cpu --precond=none --generate=poisson2d:160 --tol=1e-10 >"$tmp/pout" 2>"$tmp/perr"
if grep -q "[$cr$esc]" "$tmp/pout" "$tmp/perr"; then
    echo "FAIL: a progress line without a terminal"; cat -v "$tmp/perr"; fail=1
else
    echo "ok: no progress line when stderr is a file"
fi
if command -v script >/dev/null && script -qfec true /dev/null >/dev/null 2>&1; then
    script -qfec "'$cg' --device=cpu --precond=none --generate=poisson2d:160 --tol=1e-10" \
        /dev/null >"$tmp/tty" 2>&1
    solve_s=`tr -d '\r' <"$tmp/tty" | awk '/^time/ {print $6}'`
    shown=0; grep -q "${cr}cgsolve: iteration [0-9]*  relres" "$tmp/tty" && shown=1
    if [ -z "$solve_s" ]; then
        echo "FAIL: no summary from cgsolve on a terminal"; cat -v "$tmp/tty"; fail=1
    elif awk "BEGIN { exit !($solve_s >= 0.5) }" && [ $shown -ne 1 ]; then
        echo "FAIL: a ${solve_s} s solve on a terminal showed no progress line"; cat -v "$tmp/tty"; fail=1
    elif awk "BEGIN { exit !($solve_s < 0.2) }" && [ $shown -ne 0 ]; then
        echo "FAIL: a ${solve_s} s solve showed a progress line before 0.25 s"; cat -v "$tmp/tty"; fail=1
    elif [ $shown -eq 1 ] && ! grep -q "${cr}${esc}\[Kmatrix " "$tmp/tty"; then
        echo "FAIL: the progress line is not erased before the summary"; cat -v "$tmp/tty"; fail=1
    else
        echo "ok: progress line on a terminal (shown: $shown, solve ${solve_s} s)"
    fi
    script -qfec "'$cg' --device=cpu --precond=none --generate=poisson2d:160 --tol=1e-10 --monitor=50" \
        /dev/null >"$tmp/tty" 2>&1
    if grep -q "${cr}cgsolve: iteration" "$tmp/tty"; then
        echo "FAIL: a progress line beside --monitor"; fail=1
    fi
    script -qfec "'$cg' --device=cpu --precond=none --generate=poisson2d:160 --tol=1e-10 -q" \
        /dev/null >"$tmp/tty" 2>&1
    if [ -s "$tmp/tty" ]; then echo "FAIL: --quiet on a terminal printed"; cat -v "$tmp/tty"; fail=1; fi
fi

# cgsolve is a program of the public API: its objects call no internal mpcgi_ symbol and
# include no internal header
objs=`ls "$top_builddir"/cli/*.o 2>/dev/null`
if [ -n "$objs" ] && command -v nm >/dev/null; then
    internal=`nm -u $objs | grep 'mpcgi_'`
    if [ -n "$internal" ]; then
        echo "FAIL: cgsolve uses internal symbols:"; echo "$internal"; fail=1
    else
        echo "ok: cgsolve's objects use public symbols only"
    fi
fi
if grep -nE '#include "(core|spmv|io|precond|solver)/' "$top_srcdir"/cli/*.[ch]; then
    echo "FAIL: cgsolve includes internal headers"; fail=1
fi

# --info: validates and describes without solving
expect 0 'symmetry +symmetric$' -- --info "$data/nos4.mtx"
expect 0 'size +n = 100, nnz = 594 expanded, 347 stored in the file' -- --info "$data/nos4.mtx"
expect 0 'diagonal +100 positive, 0 missing, 0 zero, 0 negative$' -- --info "$data/nos4.mtx"
expect 0 'rows +nnz per row: min 2, mean 5.94, max 7, sigma 1.4[0-9]; 0 empty' -- --info "$data/nos4.mtx"
expect 0 'storage +cpu: CSR' -- --info "$data/nos4.mtx"
expect 0 'auto: cpu on the CPU' -- --info --generate=poisson2d:8
expect 0 'Matrix Market coordinate real skew-symmetric' -- --info "$data/mm/coord_real_skew.mtx"
expect 0 'diagonal +0 positive, 3 missing \(first: row 1\)' -- --info "$data/mm/coord_real_skew.mtx"
expect 0 'symmetry +not symmetric: 1 entry differs' -- --info "$tmp/ns.mtx"
expect 3 'not symmetric' -- --info --check-symmetry "$tmp/ns.mtx"
expect 2 '--info solves nothing' -- --info -o "$tmp/x.mtx" "$data/nos4.mtx"
"$cg" --info --quiet "$data/nos4.mtx" >"$tmp/out" 2>&1 || { echo "FAIL: --info --quiet"; fail=1; }
if [ -s "$tmp/out" ]; then echo "FAIL: --info --quiet printed something"; cat "$tmp/out"; fail=1; fi
# every malformed file of the corpus: exit 3 and "file:line: reason"
for f in "$data"/mm/bad_*; do
    b=`basename "$f"`
    "$cg" --info "$f" >"$tmp/out" 2>&1
    rc=$?
    if [ $rc -eq 3 ] && { grep -Eq "$b:[0-9]+: [a-z]" "$tmp/out" ||
                          grep -q 'reading .gz needs zlib' "$tmp/out"; }; then
        nbad=$((${nbad:-0} + 1))
    else
        echo "FAIL: cgsolve --info $b exited $rc, expected 3 and '$b:LINE: reason'"
        cat "$tmp/out"; fail=1
    fi
done
echo "ok: cgsolve --info rejects all ${nbad:-0} malformed files with file:line: reason"

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
need = {"matrix": ["name", "n", "nnz"], "solver": ["backend", "precision", "tol", "atol", "maxit"],
        "result": ["converged", "reason", "iterations", "true_relres", "recurrence_relres"],
        "time": ["setup_s", "solve_s"], "device": ["kind", "name"]}
missing = [f"{k}.{f}" for k, fs in need.items() for f in fs if f not in r.get(k, {})]
assert not missing, f"missing JSON fields: {missing}"
assert {k: r["matrix"][k] for k in ("name", "n", "nnz")} == \
    {"name": "gr_30_30.mtx", "n": 900, "nnz": 7744}, r["matrix"]
assert r["result"]["converged"] is True and r["result"]["true_relres"] <= 1e-8
assert r["result"]["reason"] == "MPCG_CONVERGED_RTOL"
assert r["mode"] == "solve" and r["warnings"] == [] and r["matrix"]["symmetric"] is True
assert isinstance(r["solver"]["variant"], str) and isinstance(r["solver"]["variant_reason"], str)
c = r["solver"]["backend_choice"]
assert (c["chosen"], c["source"], c["candidates"], c["trial_s"]) == ("cpu", "cpu", [], None), c
print("ok: JSON report has every field")
PYEOF
    # --atol in the report: the value, and the reason where it decided
    "$cg" --device=cpu --quiet --tol=1e-12 --atol=1e-3 --json "$tmp/a.json" "$data/nos4.mtx"
    python3 - "$tmp/a.json" <<'PYEOF' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
assert r["solver"]["atol"] == 1e-3 and r["solver"]["tol"] == 1e-12, r["solver"]
assert r["result"]["reason"] == "MPCG_CONVERGED_ATOL" and r["result"]["converged"], r["result"]
assert r["result"]["true_relres"] * 10 <= 1e-3, r["result"]   # ||b|| = 10
print("ok: JSON report of an --atol solve")
PYEOF
    # the non-symmetry warning is in the report too
    "$cg" --device=cpu --quiet --precond=none --maxit=5 --json "$tmp/ns.json" "$tmp/ns.mtx" 2>/dev/null
    python3 - "$tmp/ns.json" <<'PYEOF' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
assert r["matrix"]["symmetric"] is False, r["matrix"]
assert len(r["warnings"]) == 1 and "not symmetric" in r["warnings"][0], r["warnings"]
print("ok: JSON report carries the non-symmetry warning")
PYEOF
    # --info --json: the facts of a valid file, the error of a malformed one
    "$cg" --info --quiet --json "$tmp/i.json" "$data/mm/coord_real_skew.mtx" || fail=1
    "$cg" --info --json - "$data/mm/bad_row_big.mtx" >"$tmp/e.json" 2>/dev/null
    [ $? -eq 3 ] || { echo "FAIL: --info --json on a bad file: exit status"; fail=1; }
    python3 - "$tmp/i.json" "$tmp/e.json" <<'PYEOF' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
assert r["mode"] == "info" and r["valid"] is True
m = r["matrix"]
assert (m["name"], m["n"], m["nnz"], m["nnz_stored"]) == ("coord_real_skew.mtx", 3, 6, 3), m
assert (m["format"], m["field"], m["declared_symmetry"]) == ("coordinate", "real", "skew-symmetric")
assert m["symmetric"] is False and m["skew_symmetric"] is True and m["structurally_symmetric"] is True
assert m["asymmetric_entries"] == 6 and m["first_asymmetric"] == [1, 2], m
assert m["diagonal"] == {"positive": 0, "missing": 3, "zero": 0, "negative": 0,
                         "first_missing": 1, "first_zero": None, "first_negative": None}, m
assert m["row_nnz"] == {"min": 2, "mean": 2, "max": 2, "stddev": 0, "empty": 0}, m["row_nnz"]
names = [b["name"] for b in r["backends"]]
assert "cpu" in names, names
for b in r["backends"]:
    assert b["status"] == "MPCG_SUCCESS" and b["storage"] and b["bytes_matrix"] > 0, b
assert r["auto_backend"]["cpu"] == "cpu" and isinstance(r["gpus"], int)
assert len(r["warnings"]) == 2, r["warnings"]
e = json.load(open(sys.argv[2]))
assert e["mode"] == "info" and e["valid"] is False and e["matrix"]["name"] == "bad_row_big.mtx"
assert e["error"]["status"] == "MPCG_ERR_PARSE", e
assert "bad_row_big.mtx:7: row index 9 out of range [1, 5]" in e["error"]["message"], e
print("ok: --info JSON reports of a valid and a malformed file")
PYEOF
fi

# auto on a GPU: a trial, then the cached decision (-v, JSON); on the CPU, the cpu backend
expect 0 '^backend +cpu: auto on the CPU, no trial' -- --device=cpu -v "$data/nos4.mtx"
expect 0 '^backend +cpu: named' -- --device=cpu -v --spmv=cpu "$data/nos4.mtx"
gpus=$("$cg" --info "$data/nos4.mtx" | sed -n 's/.*(\([0-9]*\) usable here).*/\1/p')
if [ "${gpus:-0}" != 0 ] && command -v python3 >/dev/null; then
    expect 0 '^backend +[a-z]+: auto, trial: [0-9]+ of [0-9]+ backends timed' -- --device=cuda -v \
        --cache-dir="$tmp/c" \
        "$data/gr_30_30.mtx"
    expect 0 '^ +cache: read ' -- --device=cuda -v --cache-dir="$tmp/c" "$data/gr_30_30.mtx"
    expect 0 '^ +candidates built from one device copy of the matrix \([0-9.e+-]+ ms\)$' -- \
        --device=cuda -v -O auto.cache=off "$data/gr_30_30.mtx"
    "$cg" --device=cuda --quiet --json "$tmp/g.json" -O auto.cache=off "$data/gr_30_30.mtx"
    python3 - "$tmp/g.json" <<'PYEOF' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))["solver"]["backend_choice"]
assert c["source"] == "trial" and c["cache"] is None, c
timed = [k for k in c["candidates"] if not k["skipped"]]
assert len(timed) >= 2 and all(k["setup_s"] > 0 and k["spmv_s"] > 0 for k in timed), c
best = min(timed, key=lambda k: k["score_s"])
assert best["backend"] == c["chosen"] and best["chosen"] is True, c
assert c["trial_cost_spmv_equivalents"] > 0 and c["trial_s"] > 0, c
assert c["copy_s"] > 0, c   # a host matrix, two candidates or more: one device copy
print("ok: JSON backend_choice of a GPU trial")
PYEOF
fi

# stored results (hypre .saved style): iterations exact (the CPU path is deterministic and
# independent of the thread count), true residual within a factor of 2, the preconditioner chosen
while read -r name pc iters relres chosen; do
    case $name in '#'*|'') continue;; esac
    "$cg" --device=cpu --quiet --precond="$pc" --json "$tmp/s.json" "$data/$name.mtx"
    got=`python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); r=j["result"]; print(r["iterations"], r["true_relres"], j["solver"]["precond"])' "$tmp/s.json"`
    set -- $got
    if [ "$1" != "$iters" ] || [ "$3" != "$chosen" ] ||
       ! python3 -c "import sys; sys.exit(not (0.5 <= $2 / $relres <= 2))"; then
        echo "FAIL: $name --precond=$pc: got iterations $1 relres $2 precond $3, stored $iters $relres $chosen"; fail=1
    else
        echo "ok: $name --precond=$pc matches the stored result ($iters iterations, $chosen)"
    fi
done < "$top_srcdir/test/data/cgsolve_expected.txt"
exit $fail
