# core/Makefile.mk: context, errors, memory, CSR, timers, vector kernels
libmpcgi_la_SOURCES += core/error.c core/error.h core/context.c core/context.h \
	core/alloc.c core/alloc.h core/csr.c core/csr.h core/matrix.c core/matrix.h core/matrix_view.c \
	core/timer.c core/timer.h core/rng.h core/device.h core/vec.c core/vec.h core/vec_impl.h \
	core/options.c core/options.h core/csr_view.h
# the pattern hash and the cache directory's files (spmv auto's decisions)
libmpcgi_la_SOURCES += core/cache.c core/cache.h
# blocks of s vectors (block CG): the host tables; the device ones below
libmpcgi_la_SOURCES += core/block.c core/block.h core/block_pass.c core/block_pass.h
# many small systems (docs/batched.md): the batch object
libmpcgi_la_SOURCES += core/batch.c core/batch.h
# mpcg_matrix_describe, mpcg_device_count
libmpcgi_la_SOURCES += core/describe.c
# the device layer: CUDA (context, memory, vector kernels) or the CPU-only stub
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += core/device_cuda.c core/device_cuda.h core/device_stage.c core/cuda_check.h \
	core/vec_cuda.cu core/vec_cuda.h core/cg_kernels.cu core/cg_kernels.h core/cg_device.cuh \
	core/cuda_reduce.cuh core/launch.cuh core/device_spin.cu core/device_spin.h
MPCG_CU_FILES += core/vec_cuda.cu core/cg_kernels.cu core/device_spin.cu
# device CSR views (mpcg_matrix_view_device_csr): checks, host copies, parts for the backends
libmpcgi_la_SOURCES += core/csr_view.c core/csr_view.cu core/csr_view_kernels.h
MPCG_CU_FILES += core/csr_view.cu
libmpcgi_la_SOURCES += core/block_cuda.c core/block_cuda.h core/block_cuda.cu core/tsgemm.cu \
	core/block_kernels.h core/block_pass.cu core/ts_device.cuh
MPCG_CU_FILES += core/block_cuda.cu core/tsgemm.cu core/block_pass.cu
else
libmpcgi_la_SOURCES += core/device_stub.c
endif
