# test/Makefile.mk: one test program per module, test/test_<module>.c built from that one file
# (Automake's default source) and linked with LDADD; GPU tests exit 77 (SKIP) without a GPU
# SPDX-License-Identifier: BSD-3-Clause
#
# LDADD is the default of every program without its own _LDADD: the test programs. Every other
# program (cgsolve, the examples, the bench and Fortran programs) names its own.
LDADD = test/libtestutil.la libmpcgi.la $(LIBS)
check_LTLIBRARIES = test/libtestutil.la
test_libtestutil_la_SOURCES = test/testutil.c test/testutil.h test/block_pass_shapes.h
if MPCG_HAVE_CUDA
# the checks every device SpMV backend's test runs (emulation, GPU bit for bit, the fused dot)
test_libtestutil_la_SOURCES += test/spmv_check.c test/spmv_check.h
endif

# `make check` runs MPCG_TESTS through build-aux/run-tests.sh, which prints one line per test
# and ends with "N passed, N failed[, N skipped]" whether or not a test fails (automake's harness
# cannot end on our line). Programs exit 77 to SKIP; run a subset with
# `make check MPCG_TESTS='test/test_device test/test_cgsolve.sh'`. The tests' auto decisions
# (cgsolve's and the Python package's default cache directory) go to test/xdg-cache in the build
# tree, never the user's ~/.cache (a test that checks the cache makes its own directory).
check-local: $(check_PROGRAMS)
	@MPCG_TEST_DATA='$(abs_top_srcdir)/test/data'; export MPCG_TEST_DATA; \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	top_builddir='$(abs_top_builddir)'; export top_builddir; \
	PYTHON='$(PYTHON)'; export PYTHON; MPCG_HAVE_FC='$(MPCG_HAVE_FC)'; export MPCG_HAVE_FC; \
	CC='$(CC)'; export CC; MAKE='$(MAKE)'; export MAKE; \
	XDG_CACHE_HOME='$(abs_top_builddir)/test/xdg-cache'; export XDG_CACHE_HOME; \
	$(SHELL) $(top_srcdir)/build-aux/run-tests.sh $(MPCG_TESTS)
CLEANFILES += test/*.log

# The C tests of every build; those with GPU parts run their CPU checks and skip the rest
# without a GPU.
# core: the context, errors, allocation, timers; CSR; the options; the allocation-failure sweep
# over the whole CPU path; the device memory cap
MPCG_C_TESTS = test/test_core test/test_csr test/test_options test/test_alloc_sweep \
	test/test_device_limit
# io: the Matrix Market reader's values, files and generators
MPCG_C_TESTS += test/test_io_mm test/test_io_num test/test_io_generate
# spmv: the cpu backend; the block products of every backend (test_spmm); the batched SpMM with
# batched CG (test_batch); the pattern hash and cache files (core/cache.c); auto's rule, record
# and CPU trial; the describe calls of the public API (cgsolve --info)
MPCG_C_TESTS += test/test_spmv_cpu test/test_spmm test/test_batch test/test_cache \
	test/test_spmv_auto test/test_describe
# solver: CG and PCG, fp32 and mixed, the absolute tolerance, the residual history and the
# progress callback, block CG against single CG; the preconditioners; device CSR views' arguments
MPCG_C_TESTS += test/test_solver_cg test/test_solver_fp32 test/test_solver_mixed \
	test/test_solver_pcg test/test_solver_atol test/test_solver_history test/test_block \
	test/test_precond test/test_view_args
# cli: cgsolve's progress line (its rate, estimate, words and throttle), from the command's own
# source: the one test with a second source file
MPCG_C_TESTS += test/test_cgsolve_progress
test_test_cgsolve_progress_SOURCES = test/test_cgsolve_progress.c cli/progress.c
check_PROGRAMS += $(MPCG_C_TESTS)
MPCG_TESTS += $(MPCG_C_TESTS)

MPCG_SH_TESTS = test/test_cgsolve.sh test/test_scipy_crosscheck.sh test/test_symbols.sh \
	test/test_readme_example.sh test/test_io_scipy.sh test/test_install.sh test/test_refs.sh \
	test/test_budget.sh test/test_python.sh
MPCG_TESTS += $(MPCG_SH_TESTS)
EXTRA_DIST += $(MPCG_SH_TESTS) test/data test/scipy_cg.py test/mm_compare.py test/valgrind.supp
# test/test_io_scipy.sh: what mpcg read, written back for the comparison with scipy.io.mmread
check_PROGRAMS += test/mm_dump
# the reader's fuzzing (docs/reliability.md; .ci/run runs it)
EXTRA_DIST += fuzz/build.sh fuzz/run.sh fuzz/fuzz_mm_read.c fuzz/mm.dict

# the examples run as tests: every step must converge
MPCG_TESTS += test/test_example_heat.sh test/test_example_batch.sh test/test_example_device_csr.sh
EXTRA_DIST += test/test_example_heat.sh test/test_example_batch.sh test/test_example_device_csr.sh
# the Fortran module (fortran/Makefile.mk): its examples against cgsolve, mpcg_info's layout;
# SKIP where configure found no Fortran compiler
MPCG_TESTS += test/test_fortran.sh
EXTRA_DIST += test/test_fortran.sh

# GPU tests (CUDA builds): each runs its CPU checks (CPU emulation, error mapping), then exits 77
# (SKIP) where no GPU is usable
if MPCG_HAVE_CUDA
# core: the device layer; the fused CG kernels; the device block kernels and the tall-skinny
# GEMM; device CSR views
MPCG_GPU_TESTS = test/test_device test/test_cg_kernels test/test_block_cuda test/test_device_csr
# spmv: a test per backend (gather: fold's layout with x gathered, and its out-of-core mode),
# the mixed-storage products of every backend, auto on a GPU (twice over one cache) and its
# device copy of A
MPCG_GPU_TESTS += test/test_spmv_cusparse test/test_spmv_cusparsesell test/test_spmv_adaptive \
	test/test_spmv_segscan test/test_spmv_fold test/test_spmv_gather test/test_spmv_mixed \
	test/test_spmv_auto_gpu test/test_spmv_auto_copy
# solver: CG on the GPU, the fused variants, the persistent loops' windows
MPCG_GPU_TESTS += test/test_solver_cg_gpu test/test_solver_cg_fused test/test_solver_cg_windows \
	test/test_solver_pcg_gpu
check_PROGRAMS += $(MPCG_GPU_TESTS)
MPCG_TESTS += $(MPCG_GPU_TESTS)
# the benchmark programs' command line; a small measured run where a GPU is usable
MPCG_TESTS += test/test_bench_cli.sh
endif
EXTRA_DIST += test/test_bench_cli.sh
