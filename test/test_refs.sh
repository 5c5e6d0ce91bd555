#!/bin/sh
# test/test_refs.sh: every path that a source, header, doc, man page or script of the repository
# cites must exist in the repository
# SPDX-License-Identifier: BSD-3-Clause
#
# Scanned: the tracked files (git ls-files; without a git checkout, as in `make distcheck`, the
# same kinds of files found under $top_srcdir) named *.c *.h *.cu *.cuh *.md *.sh *.py *.mk *.am
# *.ac *.in *.m4 *.1 and .ci/run, but not bench/results/ (logs of past runs), test/data/, *.log,
# nor autotools' generated files. A citation is a run of the characters [A-Za-z0-9_./-]:
#   - one whose path has a component shared/..., seeds/... or ref/<name>.md (at the start or
#     after a '/', so also behind ../ or in an absolute path), taken from that component on: the
#     material next to the checkout, which a tarball or another checkout does not have;
#   - one that starts (after any ../ or ./) with a directory of the repository and ends in .c .h
#     .cu .cuh .md .sh .py .mk .am .ac .in or .1 (spmv/adaptive/spmv_f64.cu, docs/solver.md).
# Each must exist relative to $top_srcdir. Runs starting with // (URLs) are skipped; so are runs
# with wildcards or placeholders (test/test_*.c and test/test_<module>.c stop at the '*' or '<'
# and end in no extension), and so are the files make writes into the build tree
# (python/Makefile.mk's _config.py). Prints FILE:LINE: PATH for each path that does not exist.
: "${top_srcdir:=.}"
root=$top_srcdir
tmp=`mktemp -d` || exit 1
trap 'rm -rf "$tmp"' EXIT

# Arrange: the files to scan, relative to root
kinds='\.(c|h|cu|cuh|md|sh|py|mk|am|ac|in|m4|1)$|^\.ci/run$'
skip='^bench/results/|^test/data/|\.log$|^autom4te\.cache/|^(Makefile|config\.h)\.in$|(^|/)Makefile\.in$|^aclocal\.m4$|^configure$|^build-aux/|^m4/'
keep='^build-aux/(cudalt|run-tests)\.sh$|^m4/mpcg_[a-z_]*\.m4$'
top=`cd "$root" && git rev-parse --show-toplevel 2>/dev/null`
here=`cd "$root" && pwd -P`
if [ -n "$top" ] && [ "`cd "$top" && pwd -P`" = "$here" ]; then
    (cd "$root" && git ls-files) >"$tmp/all" || exit 1
    how="git ls-files"
else
    # not the build trees, tarballs' trees and caches a checkout may hold (.gitignore)
    (cd "$root" && find . \( -name .git -o -name autom4te.cache -o -name '.deps' -o \
        -name '.libs' -o -name 'mpcg-*' -o -name '_build*' -o -name devcarry \) -prune -o \
        -type f -print | sed 's|^\./||') >"$tmp/all" || exit 1
    how="find (no git checkout at $root)"
fi
{ grep -E "$kinds" "$tmp/all" | grep -Ev "$skip"; grep -E "$keep" "$tmp/all"; } |
    sort -u >"$tmp/files"
nfiles=`wc -l <"$tmp/files"`
echo "scanning $nfiles files from $how"
[ "$nfiles" -gt 0 ] || { echo "FAIL: no files to scan under $root"; exit 1; }

# Act: every citation as "PATH<TAB>FILE:LINE"
(cd "$root" && awk -v list="$tmp/files" '
function cite(f, n, t,    q) {
    if (substr(t, 1, 2) == "//") return           # a URL
    sub(/[.\/]+$/, "", t)                          # a sentence or a directory ends here
    if (match(t, /(^|\/)(shared|seeds)\/[A-Za-z0-9_]/) ||
        match(t, /(^|\/)ref\/[A-Za-z0-9_-]+\.md$/)) {
        q = substr(t, RSTART)
        sub(/^\//, "", q)
        print q "\t" f ":" n
        return
    }
    q = t
    while (substr(q, 1, 3) == "../") q = substr(q, 4)
    if (substr(q, 1, 2) == "./") q = substr(q, 3)
    if (q ~ /^(docs|spmv|core|solver|cli|io|bench|test|include|precond|examples|man|fuzz|python|fortran|build-aux|m4)\/[A-Za-z0-9_.\/-]*\.(c|h|cu|cuh|md|sh|py|mk|am|ac|in|1)$/)
        print q "\t" f ":" n
}
BEGIN {
    while ((getline f < list) > 0) {
        n = 0
        while ((getline line < f) > 0) {
            n++
            gsub(/[^A-Za-z0-9_.\/-]+/, " ", line)
            k = split(line, w, " ")
            for (i = 1; i <= k; i++) cite(f, n, w[i])
        }
        close(f)
    }
}') >"$tmp/cites" || { echo "FAIL: awk could not scan"; exit 1; }

# Assert: each cited path exists
ncites=`wc -l <"$tmp/cites"`
cut -f1 "$tmp/cites" | sort -u >"$tmp/paths"
: >"$tmp/missing"
made='^python/mpcg/_config[.]py$'   # written by make (python/Makefile.mk)
while IFS= read -r p; do
    echo "$p" | grep -Eq "$made" && continue
    [ -e "$root/$p" ] || echo "$p" >>"$tmp/missing"
done <"$tmp/paths"
echo "$ncites citations of `wc -l <"$tmp/paths"` paths"
if [ -s "$tmp/missing" ]; then
    awk -F '\t' 'NR == FNR { missing[$1] = 1; next } ($1 in missing) { print $2 ": " $1 }' \
        "$tmp/missing" "$tmp/cites" | sort -t: -k1,1 -k2,2n
    echo "FAIL: `wc -l <"$tmp/missing"` cited paths do not exist in the repository (cite what"
    echo "      the repository holds: put what is needed in docs/, or name the file it moved to)"
    exit 1
fi
echo "PASS"
