#!/usr/bin/env python3
# test/mm_compare.py: the Matrix Market corpus (test/data/mm) read by mpcg against scipy.io.mmread
# SPDX-License-Identifier: BSD-3-Clause
"""usage: mm_compare.py MM_DUMP DIR

Every valid file of DIR (names not starting with bad_) is read by mpcg through MM_DUMP (which
writes what mpcg read: the expanded matrix as coordinate real general %.17g, or the vector as an
array) and by scipy.io.mmread; both must give exactly the same matrix: the same size, the same
stored positions (explicit zeros of coordinate files included; zeros of array files are not
stored) and bit-identical values (the symmetric and skew-symmetric expansion, pattern values 1,
integer values, duplicates summed, .gz). vec_* files are read as vectors.

Every malformed file (bad_*) must be rejected by mpcg with MPCG_ERR_PARSE (MPCG_ERR_IO for a
truncated .gz; MPCG_ERR_NOT_SUPPORTED for a .gz without zlib) and a "FILE:LINE: reason" message.
Whether scipy rejects it too is printed for information only: scipy 1.10 accepts some of them.
"""
import glob
import gzip
import os
import pickle
import struct
import subprocess
import sys
import tempfile
import warnings
from concurrent.futures import ThreadPoolExecutor

import scipy
import scipy.io
import scipy.sparse


def bits(v):
    return struct.pack("<d", float(v))


def add(d, key, v):
    # the first value as it is (so -0.0 stays -0.0), later duplicates summed in file order
    d[key] = d[key] + v if key in d else v


def read_coordinate(path):
    """mpcg's output: coordinate real general, 1-based."""
    with open(path) as f:
        banner = f.readline().split()
        assert [w.lower() for w in banner[1:]] == ["matrix", "coordinate", "real", "general"]
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        rows, cols, nnz = map(int, line.split())
        d = {}
        for _ in range(nnz):
            i, j, v = f.readline().split()
            key = (int(i) - 1, int(j) - 1)
            assert key not in d, f"mpcg wrote {key} twice"
            d[key] = float(v)
    return (rows, cols), d


def read_array_vector(path):
    """mpcg's output: array real general n x 1."""
    with open(path) as f:
        f.readline()
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        rows, cols = map(int, line.split())
        return [float(f.readline()) for _ in range(rows * cols)]


def canonical_line(line, coordinate, field):
    """An entry line with its values written as Python writes them (repr of float(), str of
    int()): scipy >= 1.12 reads numbers with std::from_chars, which rejects '+2', for one."""
    words = line.split()
    first = 2 if coordinate else 0
    conv = (lambda w: str(int(w))) if field == "integer" else (lambda w: repr(float(w)))
    return " ".join(words[:first] + [conv(w) for w in words[first:]])


def normalized_copy(path, tmp, canonical_numbers=False):
    """The same file as scipy reads it: the banner spelled '%%MatrixMarket' with lower-case
    words, no comment or blank line after it, no leading blanks. scipy 1.10 rejects a banner in
    other case and comment lines between entries, both of which the format allows. With
    canonical_numbers, values are rewritten by Python's own number parser (canonical_line)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        lines = f.read().replace("\r\n", "\n").split("\n")
    words = [w.lower() for w in lines[0].split()]
    out = ["%%MatrixMarket " + " ".join(words[1:])]
    body = [l.strip() for l in lines[1:] if l.strip() and not l.strip().startswith("%")]
    if canonical_numbers and body:
        coordinate, field = words[2] == "coordinate", words[3]
        body = body[:1] + [canonical_line(l, coordinate, field) for l in body[1:]]
    out += body
    name = os.path.join(tmp, "normalized.mtx")
    with open(name, "w") as f:
        f.write("\n".join(out) + "\n")
    return name


def scipy_read_here(path, tmp):
    """scipy.io.mmread(path); if scipy rejects it, the same on normalized copies."""
    try:
        return scipy.io.mmread(path), ""
    except Exception as e:  # noqa: BLE001 - any rejection falls back to the normalized copy
        first = e
    try:
        return scipy.io.mmread(normalized_copy(path, tmp)), f" (normalized: scipy said {first})"
    except Exception:  # noqa: BLE001
        m = scipy.io.mmread(normalized_copy(path, tmp, canonical_numbers=True))
        return m, f" (normalized, numbers rewritten by Python: scipy said {first})"


def scipy_read(path, tmp):
    """(scipy_matrix(m), m flattened to a list, note) of scipy's reading of path, or a string
    saying how scipy failed. scipy reads in a child process (this script with --scipy-read):
    a crash of scipy's own reader must not take the whole comparison down."""
    out = os.path.join(tmp, "scipy.pickle")
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--scipy-read", path, out],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "scipy did not finish reading it in 60 s"
    if r.returncode != 0:
        return f"scipy failed (exit status {r.returncode}): {r.stderr.strip()[-300:]}"
    with open(out, "rb") as f:
        return pickle.load(f)


def scipy_read_child(path, out):
    with tempfile.TemporaryDirectory() as tmp:
        m, note = scipy_read_here(path, tmp)
    flat = (m.toarray() if scipy.sparse.issparse(m) else m).flatten().tolist()
    with open(out, "wb") as f:
        pickle.dump((scipy_matrix(m), flat, note), f)


def scipy_matrix(m):
    """(shape, {(i, j): value}) of what scipy read, duplicates summed in file order."""
    d = {}
    if scipy.sparse.issparse(m):
        c = m.tocoo()
        for i, j, v in zip(c.row.tolist(), c.col.tolist(), c.data.tolist()):
            add(d, (i, j), float(v))
    else:
        for (i, j), v in zip(((i, j) for i in range(m.shape[0]) for j in range(m.shape[1])),
                             m.flatten().tolist()):
            if v != 0:
                d[(i, j)] = float(v)
    return tuple(m.shape), d


def dump(mm_dump, kind, path, out):
    r = subprocess.run([mm_dump, kind, path, out], capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout.strip()


def compare_matrix(name, ours, theirs):
    (shape, d), (tshape, td) = ours, theirs
    if shape != tshape:
        return f"size {shape}, scipy {tshape}"
    if set(d) != set(td):
        only = sorted(set(d) ^ set(td))[:5]
        return f"stored positions differ, e.g. {only} (mpcg {len(d)}, scipy {len(td)})"
    for key in sorted(d):
        if bits(d[key]) != bits(td[key]):
            return f"A{key} = {d[key]!r}, scipy {td[key]!r}"
    return None


def check_valid(mm_dump, path, tmp):
    name = os.path.basename(path)
    kind = "vector" if name.startswith("vec_") else "matrix"
    out = os.path.join(tmp, "out.mtx")
    rc, msg = dump(mm_dump, kind, path, out)
    if rc != 0:
        return f"mpcg rejects it: {msg}"
    theirs = scipy_read(path, tmp)
    if isinstance(theirs, str):
        return theirs
    scipy_m, y, note = theirs
    if kind == "vector":
        x = read_array_vector(out)
        if len(x) != len(y) or any(bits(a) != bits(b) for a, b in zip(x, y)):
            return f"vector {x}, scipy {y}"
        print(f"ok: {name}: vector of {len(x)} = scipy{note}")
        return None
    ours = read_coordinate(out)
    err = compare_matrix(name, ours, scipy_m)
    if err is None:
        print(f"ok: {name}: {ours[0][0]} x {ours[0][1]}, {len(ours[1])} entries = scipy{note}")
    return err


SCIPY_READ = "import sys, scipy.io; scipy.io.mmread(sys.argv[1])"


def scipy_rejects(path):
    """True if scipy.io.mmread raises, crashes or runs past 10 s (scipy 1.10 loops on some
    malformed files; later versions' C++ reader has crashed on some); None when not asked.
    In a child process, so that nothing scipy does can take this test down."""
    if "huge" in path:
        return None  # scipy would allocate the declared size
    try:
        r = subprocess.run([sys.executable, "-c", SCIPY_READ, path], capture_output=True,
                           timeout=10)
        return r.returncode != 0
    except subprocess.TimeoutExpired:
        return True


def check_malformed(mm_dump, path, tmp):
    name = os.path.basename(path)
    kind = "vector" if name.startswith(("bad_vec_", "bad_vector")) else "matrix"
    rc, msg = dump(mm_dump, kind, path, os.path.join(tmp, "out.mtx"))
    status, _, text = msg.partition("\t")
    want = {"MPCG_ERR_PARSE"}
    if name.endswith(".gz"):
        want |= {"MPCG_ERR_IO", "MPCG_ERR_NOT_SUPPORTED"}
    if rc != 1 or status not in want:
        return f"mpcg gives {rc} {msg!r}, expected {' or '.join(sorted(want))}"
    if status != "MPCG_ERR_NOT_SUPPORTED" and not any(
            f"{name}:{k}:" in text for k in range(1, 100)):
        return f"the message lacks '{name}:LINE:': {text}"
    return None


def main():
    # scipy >= 1.12 warns that mmread's default return type will change: not our concern here
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    if len(sys.argv) == 4 and sys.argv[1] == "--scipy-read":
        scipy_read_child(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    mm_dump, directory = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(directory, "*.mtx")) +
                   glob.glob(os.path.join(directory, "*.mtx.gz")))
    failures, valid, malformed, scipy_accepts = 0, 0, 0, []
    # for information only: which malformed files scipy accepts (child processes, in parallel)
    bad = [p for p in files if os.path.basename(p).startswith("bad_")]
    with ThreadPoolExecutor(max_workers=8) as pool:
        scipy_verdict = dict(zip(bad, pool.map(scipy_rejects, bad)))
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            name = os.path.basename(path)
            if name.startswith("bad_"):
                err = check_malformed(mm_dump, path, tmp)
                malformed += 1
                if err is None and scipy_verdict[path] is False:
                    scipy_accepts.append(name)
            else:
                err = check_valid(mm_dump, path, tmp)
                valid += 1
            if err:
                print(f"FAIL: {name}: {err}")
                failures += 1
    print(f"{valid} valid files read exactly as scipy {scipy.__version__} reads them; "
          f"{malformed} malformed files rejected with FILE:LINE: reason")
    print(f"(scipy accepts {len(scipy_accepts)} of the malformed files: "
          f"{', '.join(scipy_accepts)})")
    if valid < 30 or malformed < 40:
        print("FAIL: the corpus is smaller than expected")
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
