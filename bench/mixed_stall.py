#!/usr/bin/env python3
"""bench/mixed_stall.py: mixed precision against fp64 on every SPD matrix of a set (CPU).

For each matrix and tol: an fp64 solve (the reference), then a mixed solve with the given
-O options (the cap: 3 x fp64's iterations + 200, or cgsolve's default where fp64 failed).
Prints one line per (matrix, tol): n, fp64 iterations, mixed iterations, ratio, reason, true
relative residual, fp64 finish (fb@iteration), and a summary per tol.

  bench/mixed_stall.py --cgsolve BUILD/cgsolve --dir MATRICES_DIR \
      --tol 1e-8,1e-10,1e-12 [-O mixed.stall_window=32 ...] [--jobs 2] [--md FILE]

The SPD matrices are section 1 of DIR/INDEX.md (the project's matrix index). fp64 results
are cached in --cache (JSON) since the mixed options do not change them.
"""
import argparse, json, os, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor


def spd_names(d):
    text = open(os.path.join(d, "INDEX.md")).read()
    sec = text.split("## 1.")[1].split("## 2.")[0]
    names = []
    for line in sec.splitlines():
        m = re.match(r"\| ([A-Za-z0-9_]+) \|", line)
        if m and m.group(1) != "name":
            names.append(m.group(1))
    return names


def run(cgsolve, path, prec, tol, opts, maxit=None):
    cmd = [cgsolve, "--device=cpu", "--threads=1", "--precision=" + prec, "--tol=%g" % tol,
           "--quiet", "--json=-"]
    if maxit: cmd.append("--maxit=%d" % maxit)
    for o in opts: cmd += ["-O", o]
    cmd.append(path)
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return json.loads(p.stdout)["result"]
    except Exception:
        return {"converged": False, "reason": "FAILED rc=%d %s" % (p.returncode, p.stderr.strip()[:80]),
                "iterations": -1, "true_relres": float("nan")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cgsolve", required=True)
    ap.add_argument("--dir", required=True, help="the SuiteSparse matrices with their INDEX.md")
    ap.add_argument("--tol", default="1e-8,1e-10,1e-12")
    ap.add_argument("-O", dest="opts", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", default="/tmp/mixed_stall_fp64.json")
    ap.add_argument("--only", default="")
    ap.add_argument("--md", default="")
    a = ap.parse_args()
    names = spd_names(a.dir)
    if a.only: names = [n for n in names if n in a.only.split(",")]
    tols = [float(t) for t in a.tol.split(",")]
    cache = json.load(open(a.cache)) if os.path.exists(a.cache) else {}
    jobs = [(n, t) for t in tols for n in names]

    def fp64(n, t):
        key = "%s@%g" % (n, t)
        if key not in cache:
            cache[key] = run(a.cgsolve, os.path.join(a.dir, n + ".mtx"), "fp64", t, [])
        return cache[key]

    def one(job):
        n, t = job
        f = fp64(n, t)
        cap = 3 * f["iterations"] + 200 if f["converged"] else None
        m = run(a.cgsolve, os.path.join(a.dir, n + ".mtx"), "mixed", t, a.opts, cap)
        return n, t, f, m

    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(one, jobs))
    json.dump(cache, open(a.cache, "w"))
    md = []
    for t in tols:
        rows = [r for r in res if r[1] == t]
        md.append("\n### tol %g, %s\n" % (t, " ".join("-O " + o for o in a.opts) or "defaults"))
        md.append("| matrix | fp64 iterations | mixed iterations | ratio | mixed reason | true relres | fp64 finish at |")
        md.append("|---|--:|--:|--:|---|--:|--:|")
        solvable = within = fails = 0
        over = []
        for n, _, f, m in rows:
            fi = f["iterations"] if f["converged"] else None
            mi = m["iterations"]
            ratio = mi / fi if fi else None
            fb = m.get("fallback_iteration") if m.get("precision_fallback") else None
            honest = (not m["converged"]) or m["true_relres"] <= t
            if fi is not None:
                solvable += 1
                if not m["converged"]: fails += 1
                elif ratio <= 1.3: within += 1
                else: over.append((ratio, n))
            print("%-14s %8s %7s %6s %-26s %9.2e fb=%s%s" % (
                n, fi if fi else "-", mi, "%.2f" % ratio if ratio else "-", m["reason"],
                m["true_relres"], fb, "" if honest else "  DISHONEST"))
            md.append("| %s | %s | %d | %s | %s | %.2e | %s |" % (
                n, fi if fi else "- (%s)" % f["reason"].replace("MPCG_", ""), mi,
                "%.2f" % ratio if ratio else "-", m["reason"].replace("MPCG_", ""),
                m["true_relres"], fb if fb is not None else "-"))
        over.sort(reverse=True)
        s = ("tol %g: fp64 converges on %d; mixed fails on %d; within 1.3x on %d; over: %s" %
             (t, solvable, fails, within, ", ".join("%s %.2f" % (n, r) for r, n in over) or "none"))
        print("SUMMARY " + s)
        md.append("\n" + s + "\n")
    if a.md:
        open(a.md, "w").write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
