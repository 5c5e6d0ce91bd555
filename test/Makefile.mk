# test/Makefile.mk: one test program per module; GPU tests exit 77 (SKIP) without a GPU
TEST_LDADD = test/libtestutil.la libmpcgi.la $(LIBS)
check_LTLIBRARIES = test/libtestutil.la
test_libtestutil_la_SOURCES = test/testutil.c test/testutil.h

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

MPCG_C_TESTS = test/test_core test/test_csr test/test_spmv_cpu test/test_solver_cg \
	test/test_io_mm test/test_io_num test/test_io_generate test/test_options
# robustness: the allocation-failure sweep over the whole CPU path; the device memory cap (its
# GPU part skips without a GPU)
MPCG_C_TESTS += test/test_alloc_sweep test/test_device_limit
test_test_alloc_sweep_SOURCES = test/test_alloc_sweep.c
test_test_alloc_sweep_LDADD = $(TEST_LDADD)
test_test_device_limit_SOURCES = test/test_device_limit.c
test_test_device_limit_LDADD = $(TEST_LDADD)
check_PROGRAMS += $(MPCG_C_TESTS)
MPCG_TESTS += $(MPCG_C_TESTS)
test_test_core_SOURCES = test/test_core.c
test_test_core_LDADD = $(TEST_LDADD)
test_test_csr_SOURCES = test/test_csr.c
test_test_csr_LDADD = $(TEST_LDADD)
test_test_spmv_cpu_SOURCES = test/test_spmv_cpu.c
test_test_spmv_cpu_LDADD = $(TEST_LDADD)
test_test_solver_cg_SOURCES = test/test_solver_cg.c
test_test_solver_cg_LDADD = $(TEST_LDADD)
# precision fp32 on the CPU; its GPU comparisons skip without a GPU
MPCG_C_TESTS += test/test_solver_fp32
test_test_solver_fp32_SOURCES = test/test_solver_fp32.c
test_test_solver_fp32_LDADD = $(TEST_LDADD)
# precision mixed on the CPU; its GPU comparisons skip without a GPU
MPCG_C_TESTS += test/test_solver_mixed
test_test_solver_mixed_SOURCES = test/test_solver_mixed.c
test_test_solver_mixed_LDADD = $(TEST_LDADD)
MPCG_C_TESTS += test/test_solver_pcg
test_test_solver_pcg_SOURCES = test/test_solver_pcg.c
test_test_solver_pcg_LDADD = $(TEST_LDADD)
# the absolute tolerance in every precision, with a preconditioner and in block CG (CPU)
MPCG_C_TESTS += test/test_solver_atol
test_test_solver_atol_SOURCES = test/test_solver_atol.c
test_test_solver_atol_LDADD = $(TEST_LDADD)
# the residual history and the progress callback (CPU)
MPCG_C_TESTS += test/test_solver_history
test_test_solver_history_SOURCES = test/test_solver_history.c
test_test_solver_history_LDADD = $(TEST_LDADD)
# cgsolve's progress line: its rate, estimate, words and throttle (the command's own source)
MPCG_C_TESTS += test/test_cgsolve_progress
test_test_cgsolve_progress_SOURCES = test/test_cgsolve_progress.c solver/cgsolve_progress.c
test_test_cgsolve_progress_LDADD = $(TEST_LDADD)
test_test_io_mm_SOURCES = test/test_io_mm.c
test_test_io_mm_LDADD = $(TEST_LDADD)
test_test_io_num_SOURCES = test/test_io_num.c
test_test_io_num_LDADD = $(TEST_LDADD)
test_test_options_SOURCES = test/test_options.c
test_test_options_LDADD = $(TEST_LDADD)
test_test_io_generate_SOURCES = test/test_io_generate.c
test_test_io_generate_LDADD = $(TEST_LDADD)
# blocks (issue 23): the host block kernels and block CG against single CG (test_block); the
# device block kernels, the tall-skinny GEMM (test_block_cuda, a GPU test below); the SpMM of every backend with
# one (test_spmm); the GPU parts skip without a GPU
MPCG_C_TESTS += test/test_block test/test_spmm
test_test_block_SOURCES = test/test_block.c test/block_pass_shapes.h
test_test_block_LDADD = $(TEST_LDADD)
test_test_spmm_SOURCES = test/test_spmm.c
test_test_spmm_LDADD = $(TEST_LDADD)
# batches of small systems (issue 24): batched CG against single solves, the batched SpMM,
# the refusals; the GPU part skips without a GPU
MPCG_C_TESTS += test/test_batch
test_test_batch_SOURCES = test/test_batch.c
test_test_batch_LDADD = $(TEST_LDADD)
# the preconditioners on the CPU; their GPU comparisons skip without a GPU
MPCG_C_TESTS += test/test_precond
test_test_precond_SOURCES = test/test_precond.c
test_test_precond_LDADD = $(TEST_LDADD)
# device CSR views (mpcg_matrix_view_device_csr): the arguments, without a GPU; the views
# themselves in test/test_device_csr (a GPU test below)
MPCG_C_TESTS += test/test_view_args
test_test_view_args_SOURCES = test/test_view_args.c
test_test_view_args_LDADD = $(TEST_LDADD)
# the pattern hash and the cache directory's files (core/cache.c); auto's rule, record and CPU
# trial (spmv/auto.c, spmv/auto_cache.c); auto on a GPU, twice over one cache (a GPU test below)
MPCG_C_TESTS += test/test_cache test/test_spmv_auto
test_test_cache_SOURCES = test/test_cache.c
test_test_cache_LDADD = $(TEST_LDADD)
test_test_spmv_auto_SOURCES = test/test_spmv_auto.c
test_test_spmv_auto_LDADD = $(TEST_LDADD)
# the describe calls of the public API (cgsolve --info)
MPCG_C_TESTS += test/test_describe
test_test_describe_SOURCES = test/test_describe.c
test_test_describe_LDADD = $(TEST_LDADD)

MPCG_SH_TESTS = test/test_cgsolve.sh test/test_scipy_crosscheck.sh test/test_symbols.sh \
	test/test_readme_example.sh test/test_io_scipy.sh test/test_install.sh test/test_refs.sh \
	test/test_budget.sh test/test_python.sh
MPCG_TESTS += $(MPCG_SH_TESTS)
EXTRA_DIST += $(MPCG_SH_TESTS) test/data test/scipy_cg.py test/mm_compare.py test/valgrind.supp
# test/test_io_scipy.sh: what mpcg read, written back for the comparison with scipy.io.mmread
check_PROGRAMS += test/mm_dump
test_mm_dump_SOURCES = test/mm_dump.c
test_mm_dump_LDADD = $(TEST_LDADD)
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
MPCG_GPU_TESTS = test/test_spmv_cusparse test/test_spmv_segscan test/test_spmv_fold \
	test/test_solver_cg_gpu test/test_device \
	test/test_spmv_adaptive test/test_spmv_mixed \
	test/test_solver_cg_fused test/test_cg_kernels test/test_block_cuda test/test_device_csr \
	test/test_spmv_auto_gpu test/test_spmv_auto_copy test/test_solver_cg_windows
check_PROGRAMS += $(MPCG_GPU_TESTS)
test_test_device_csr_SOURCES = test/test_device_csr.c
test_test_device_csr_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
test_test_device_csr_LDADD = $(TEST_LDADD)
test_test_spmv_auto_gpu_SOURCES = test/test_spmv_auto_gpu.c
test_test_spmv_auto_gpu_LDADD = $(TEST_LDADD)
test_test_spmv_auto_copy_SOURCES = test/test_spmv_auto_copy.c
test_test_spmv_auto_copy_LDADD = $(TEST_LDADD)
test_test_block_cuda_SOURCES = test/test_block_cuda.c test/block_pass_shapes.h
test_test_block_cuda_LDADD = $(TEST_LDADD)
MPCG_TESTS += $(MPCG_GPU_TESTS)
test_test_spmv_segscan_SOURCES = test/test_spmv_segscan.c test/spmv_check.c test/spmv_check.h
test_test_spmv_segscan_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
test_test_spmv_segscan_LDADD = $(TEST_LDADD)
test_test_spmv_fold_SOURCES = test/test_spmv_fold.c test/spmv_check.c test/spmv_check.h
test_test_spmv_fold_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
test_test_spmv_fold_LDADD = $(TEST_LDADD)
test_test_spmv_cusparse_SOURCES = test/test_spmv_cusparse.c
test_test_spmv_cusparse_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
test_test_spmv_cusparse_LDADD = $(TEST_LDADD)
test_test_solver_cg_gpu_SOURCES = test/test_solver_cg_gpu.c
test_test_solver_cg_gpu_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
test_test_solver_cg_gpu_LDADD = $(TEST_LDADD)
test_test_spmv_adaptive_SOURCES = test/test_spmv_adaptive.c
test_test_spmv_adaptive_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
test_test_spmv_adaptive_LDADD = $(TEST_LDADD)
test_test_spmv_mixed_SOURCES = test/test_spmv_mixed.c
test_test_spmv_mixed_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
test_test_spmv_mixed_LDADD = $(TEST_LDADD)
test_test_device_SOURCES = test/test_device.c
test_test_device_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
test_test_device_LDADD = $(TEST_LDADD)
test_test_solver_cg_windows_SOURCES = test/test_solver_cg_windows.c
test_test_solver_cg_windows_LDADD = $(TEST_LDADD)
test_test_solver_cg_fused_SOURCES = test/test_solver_cg_fused.c
test_test_solver_cg_fused_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
test_test_solver_cg_fused_LDADD = $(TEST_LDADD)
test_test_cg_kernels_SOURCES = test/test_cg_kernels.c
test_test_cg_kernels_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
test_test_cg_kernels_LDADD = $(TEST_LDADD)
# the benchmark programs' command line; a small measured run where a GPU is usable
MPCG_TESTS += test/test_bench_cli.sh
endif
EXTRA_DIST += test/test_bench_cli.sh
