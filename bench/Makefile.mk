# bench/Makefile.mk: benchmark programs (never run by make check)

# mmbench: Matrix Market reading speed (MB/s of text, nonzeros/s)
noinst_PROGRAMS += mmbench
mmbench_SOURCES = bench/mmbench.c
mmbench_LDADD = libmpcgi.la $(LIBS)

# spmvbench, cgbench: GPU SpMV and CG timings beside cuSPARSE and the copy bandwidth
# (docs/benchmarks.md); bench/run.sh runs the standard set and writes bench/results/
if MPCG_HAVE_CUDA
noinst_PROGRAMS += spmvbench cgbench
spmvbench_SOURCES = bench/spmvbench.c bench/spmvbench_block.c bench/spmvbench_block.h \
	bench/spmvbench_auto.c bench/spmvbench_auto.h bench/spmvbench_ref.c bench/spmvbench_ref.h \
	bench/common.c bench/common.h
spmvbench_LDADD = libmpcgi.la $(LIBS)
cgbench_SOURCES = bench/cgbench.c bench/cgbench_block.c bench/cgbench_block.h \
	bench/cg_baseline.c bench/cg_baseline.h bench/common.c bench/common.h
cgbench_LDADD = libmpcgi.la $(LIBS)
endif
# the results the docs cite (test/test_refs.sh checks the tarball too)
EXTRA_DIST += bench/run.sh bench/results

# tsbench: the tall-skinny GEMM C = X^T Y and Y += X B (block CG's dense products) beside
# cublasDgemm / cublasSgemm, both reduction modes (docs/block.md)
if MPCG_HAVE_CUDA
noinst_PROGRAMS += tsbench
tsbench_SOURCES = bench/tsbench.c bench/common.c bench/common.h
tsbench_LDADD = libmpcgi.la $(LIBS)
endif

# batchbench: many small systems (docs/batched.md): the batched SpMM beside a loop of
# cusparseSpMM calls and cuSPARSE's strided batch, the batched CG beside one mpcg solver per
# system; bench/cupy_batch_cg.py is its CuPy peer (docs/benchmarks.md, "batchbench")
if MPCG_HAVE_CUDA
noinst_PROGRAMS += batchbench
batchbench_SOURCES = bench/batchbench.c bench/batchbench.h bench/batchbench_spmm.c \
	bench/batchbench_cg.c bench/common.c bench/common.h
batchbench_LDADD = libmpcgi.la $(LIBS)
endif

# adaptive_sweep: the adaptive backend's adaptive.* option keys timed on one matrix beside
# cusparse; bench/adaptive_experiment.sh runs it with the paper's experiment (docs/backends/adaptive.md)
if MPCG_HAVE_CUDA
noinst_PROGRAMS += adaptive_sweep
adaptive_sweep_SOURCES = bench/adaptive_sweep.c
adaptive_sweep_LDADD = libmpcgi.la $(LIBS)
endif
EXTRA_DIST += bench/adaptive_experiment.sh bench/cg_variants.py bench/mixed_stall.py bench/cupy_pcg.py \
	bench/python_cupy_cg.py bench/cupy_batch_cg.py
