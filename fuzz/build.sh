#!/bin/sh
# fuzz/build.sh: build the libFuzzer target fuzz_mm_read with clang, ASan and UBSan, from the
# library's CPU sources (no autotools, no CUDA: core/device_stub.c stands in for the GPU layer)
# SPDX-License-Identifier: BSD-3-Clause
# usage: fuzz/build.sh [BUILD_DIR]   (default fuzz/build; CC=clang-NN to choose the compiler)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/fuzz/build}
cc=${CC:-clang}
case $cc in *clang*) ;; *) cc=clang ;; esac
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "fuzz/build.sh: $cc not found (Debian: apt-get install clang)" >&2
    exit 1
fi
mkdir -p "$out"
# the configuration of a CPU-only build with zlib (what ./configure --without-cuda writes)
zlib=1
printf '#include <zlib.h>\nint main(void) { return gzopen("", "r") != 0; }\n' >"$out/zlib.c"
"$cc" "$out/zlib.c" -o "$out/zlib" -lz 2>/dev/null || zlib=0
{
    echo '/* config.h for the fuzz build (fuzz/build.sh) */'
    echo '#define MPCG_HAVE_CUDA 0'
    if [ $zlib = 1 ]; then echo '#define MPCG_HAVE_ZLIB 1'; fi
} >"$out/config.h"
libs=-lm
if [ $zlib = 1 ]; then libs="$libs -lz"; fi
# the reader and what it links: context, errors, allocation, CSR, matrix object (and its device
# view's host mirror), device stub
srcs="core/alloc.c core/context.c core/csr.c core/device_stub.c core/error.c core/matrix.c
      core/timer.c core/vec.c io/lines.c io/mm_num.c io/mm_header.c io/mm_entries.c
      io/mm_read.c io/mm_write.c core/matrix_view.c"
flags="-g -O1 -std=c11 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=all -I$out -I$top/include -I$top"
objs=
for s in $srcs; do
    o="$out/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')"
    # -fsanitize=fuzzer-no-link: instrumented for coverage, no second main()
    "$cc" $(echo "$flags" | sed 's/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,/') \
        -c "$top/$s" -o "$o"
    objs="$objs $o"
done
"$cc" $flags "$top/fuzz/fuzz_mm_read.c" $objs $libs -o "$out/fuzz_mm_read"
echo "fuzz/build.sh: built $out/fuzz_mm_read (zlib: $zlib)"
