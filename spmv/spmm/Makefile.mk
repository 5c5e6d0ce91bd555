# spmv/spmm/Makefile.mk: sparse times a block of vectors: the CSR SpMM (a sub-warp per row) and
# its CPU emulation (docs/block.md), and the batched SpMM of many small systems
# (docs/batched.md)
libmpcgi_la_SOURCES += spmv/spmm/batch.c spmv/spmm/batch.h spmv/spmm/spmm.h
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += spmv/spmm/spmm.cu spmv/spmm/emulate.c spmv/spmm/batch.cu
MPCG_CU_FILES += spmv/spmm/spmm.cu spmv/spmm/batch.cu
endif
