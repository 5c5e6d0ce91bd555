dnl m4/mpcg_cuda.m4: find nvcc, cudart, cuBLAS and cuSPARSE; --with-cuda, --with-cuda-arch
dnl SPDX-License-Identifier: BSD-3-Clause
AC_DEFUN([MPCG_CHECK_CUDA], [
AC_ARG_WITH([cuda],
  [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@], [CUDA toolkit location (default: required, found
                  through nvcc on PATH or /usr/local/cuda); --without-cuda builds a CPU-only library])],
  [], [with_cuda=yes])
AC_ARG_WITH([cuda-arch],
  [AS_HELP_STRING([--with-cuda-arch=LIST], [GPU architectures, e.g. "80 90" (default: 80 90 =
                  Ampere and Hopper, plus PTX of the last)])],
  [], [with_cuda_arch="80 90"])
AC_ARG_ENABLE([lineinfo],
  [AS_HELP_STRING([--enable-lineinfo], [device code with source line tables (nvcc -lineinfo), for
                  Nsight Compute's source view; the modules CUDA loads at a kernel's first
                  launch grow up to three times (docs/backends/adaptive.md)])],
  [], [enable_lineinfo=no])
AC_ARG_VAR([NVCC], [the CUDA compiler])

mpcg_have_cuda=no
mpcg_cuda_summary=no
CUDA_CPPFLAGS=
CUDA_LIBS=
CUDA_GENCODE=
CUDA_CODEFLAGS=
AS_IF([test "x$with_cuda" != xno], [
  AS_CASE([$with_cuda], [yes], [cuda_dir=], [cuda_dir=$with_cuda])
  AS_IF([test -z "$NVCC"], [
    AS_IF([test -n "$cuda_dir"],
      [AC_PATH_PROG([NVCC], [nvcc], [], [$cuda_dir/bin])],
      [AC_PATH_PROG([NVCC], [nvcc], [], [$PATH$PATH_SEPARATOR/usr/local/cuda/bin])])
  ])
  AS_IF([test -z "$NVCC"],
    [AC_MSG_ERROR([nvcc not found: install the CUDA toolkit (Debian package nvidia-cuda-toolkit, or NVIDIA's cuda-toolkit), pass --with-cuda=DIR, or configure --without-cuda for a CPU-only build])])
  AS_IF([test -z "$cuda_dir"], [cuda_dir=`AS_DIRNAME([$NVCC])`; cuda_dir=`AS_DIRNAME([$cuda_dir])`])
  CUDA_CPPFLAGS="-I$cuda_dir/include"
  cuda_libdir=$cuda_dir/lib64
  AS_IF([test -d "$cuda_libdir"], [], [cuda_libdir=$cuda_dir/lib])

  mpcg_save_CPPFLAGS=$CPPFLAGS; mpcg_save_LIBS=$LIBS; mpcg_save_LDFLAGS=$LDFLAGS
  CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"
  LDFLAGS="$LDFLAGS -L$cuda_libdir"
  AC_CHECK_HEADER([cuda_runtime_api.h], [],
    [AC_MSG_ERROR([cuda_runtime_api.h not found under $cuda_dir/include: install the Debian package nvidia-cuda-dev (or NVIDIA's cuda-toolkit)])])
  AC_CHECK_HEADER([cusparse.h], [],
    [AC_MSG_ERROR([cusparse.h not found: install the Debian package libcusparse11 / nvidia-cuda-dev (or NVIDIA's libcusparse-dev)])])
  AC_CHECK_HEADER([cublas_v2.h], [],
    [AC_MSG_ERROR([cublas_v2.h not found: install the Debian package libcublas11 / nvidia-cuda-dev (or NVIDIA's libcublas-dev)])])
  AC_CHECK_LIB([cudart], [cudaGetDeviceCount], [],
    [AC_MSG_ERROR([libcudart not found in $cuda_libdir: install the Debian package nvidia-cuda-dev])])
  AC_CHECK_LIB([cusparse], [cusparseCreate], [],
    [AC_MSG_ERROR([libcusparse not found in $cuda_libdir: install the Debian package nvidia-cuda-dev (libcusparse)])])
  AC_CHECK_LIB([cublas], [cublasCreate_v2], [],
    [AC_MSG_ERROR([libcublas not found in $cuda_libdir: install the Debian package nvidia-cuda-dev (libcublas)])])
  CPPFLAGS=$mpcg_save_CPPFLAGS; LIBS=$mpcg_save_LIBS; LDFLAGS=$mpcg_save_LDFLAGS

  dnl -gencode for each architecture, PTX for the last one so newer GPUs can JIT it
  last=
  for a in $with_cuda_arch; do
    AS_CASE([$a], [*[[!0-9a]]*], [AC_MSG_ERROR([--with-cuda-arch: "$a" is not an architecture number such as 80 or 90])])
    CUDA_GENCODE="$CUDA_GENCODE -gencode arch=compute_$a,code=sm_$a"
    last=$a
  done
  AS_IF([test -z "$last"], [AC_MSG_ERROR([--with-cuda-arch is empty])])
  CUDA_GENCODE="$CUDA_GENCODE -gencode arch=compute_$last,code=compute_$last"

  dnl a __global__ test compile, the ac_ext=cu way
  AC_MSG_CHECKING([whether $NVCC compiles a kernel])
  cat > conftest.cu <<_MPCG_EOF
__global__ void k(float *x) { x[[threadIdx.x]] += 1.0f; }
int main(void) { k<<<1, 1>>>(0); return 0; }
_MPCG_EOF
  AS_IF([$NVCC -std=c++17 $CUDA_GENCODE -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no]); AC_MSG_ERROR([$NVCC cannot compile a CUDA kernel for "$with_cuda_arch" (see config.log)])])

  dnl Uncompressed fatbins: CUDA loads a module at the first launch of one of its kernels, and a
  dnl compressed one is decompressed there first (docs/backends/adaptive.md, "The first plan of a
  dnl process")
  AC_MSG_CHECKING([whether $NVCC takes --no-compress])
  AS_IF([$NVCC -std=c++17 --no-compress $CUDA_GENCODE -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
    [AC_MSG_RESULT([yes]); CUDA_CODEFLAGS="--no-compress"],
    [AC_MSG_RESULT([no])])
  AS_IF([test "x$enable_lineinfo" = xyes], [CUDA_CODEFLAGS="$CUDA_CODEFLAGS -lineinfo"])
  rm -f conftest.cu conftest.$OBJEXT

  dnl the .cu objects are C++: the C linker needs libstdc++
  AC_MSG_CHECKING([whether $CC links -lstdc++])
  mpcg_save_LIBS=$LIBS; LIBS="$LIBS -lstdc++"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no]); AC_MSG_ERROR([$CC cannot link -lstdc++: install the Debian package libstdc++-dev (g++)])])
  LIBS=$mpcg_save_LIBS

  CUDA_LIBS="-L$cuda_libdir -Wl,-rpath,$cuda_libdir -lcusparse -lcublas -lcudart -lstdc++"
  mpcg_have_cuda=yes
  mpcg_cuda_summary="yes ($NVCC, arch $with_cuda_arch${CUDA_CODEFLAGS:+, $CUDA_CODEFLAGS})"
  AC_DEFINE([MPCG_HAVE_CUDA], [1], [Define to 1 if mpcg is built with CUDA])
])
AC_SUBST([CUDA_CPPFLAGS])
AC_SUBST([CUDA_LIBS])
AC_SUBST([CUDA_GENCODE])
AC_SUBST([CUDA_CODEFLAGS])
AM_CONDITIONAL([MPCG_HAVE_CUDA], [test "x$mpcg_have_cuda" = xyes])
])
