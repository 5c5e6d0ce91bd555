# solver/Makefile.mk: the solver object, the CG loops (CPU and fused GPU), block and batched CG
libmpcgi_la_SOURCES += solver/solver.h solver/solver.c solver/cg.c solver/cg_mixed.c solver/pcg.c solver/options.c \
	solver/options.h solver/cg_variants.c solver/cg_variants.h solver/history.c solver/history.h \
	solver/callback.c
# many right-hand sides: block CG (docs/block.md)
libmpcgi_la_SOURCES += solver/block_cg.c solver/block_cg.h solver/block_iter.c \
	solver/block_dense.c
# many small systems: batched CG (docs/batched.md); its kernel below
libmpcgi_la_SOURCES += solver/batch_cg.c solver/batch_cg.h
# the GPU variants: the fused loop (launched, graph) and the persistent loops, or their stub in
# a CPU-only build
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += solver/cg_fused.c solver/cg_fused.h solver/cg_loops.c \
	solver/cg_persistent.cu solver/cg_loop2.cu solver/cg_loop_common.cuh solver/cg_persistent.h \
	solver/cg_rows_dispatch.cuh solver/pcg_kernels.cu solver/pcg_kernels.h solver/pcg_tile.cuh
MPCG_CU_FILES += solver/cg_persistent.cu solver/cg_loop2.cu solver/pcg_kernels.cu
libmpcgi_la_SOURCES += solver/batch_cg.cu
MPCG_CU_FILES += solver/batch_cg.cu
else
libmpcgi_la_SOURCES += solver/cg_fused_stub.c
endif
