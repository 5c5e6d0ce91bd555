# spmv/segscan/Makefile.mk: fixed segments of nonzeros with a segmented reduction
# (docs/backends/segscan.md)
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += spmv/segscan/segscan.c spmv/segscan/emulate.c spmv/segscan/impl.h \
	spmv/segscan/kernels.h spmv/segscan/segscan.cuh
segscan_cu = spmv/segscan/spmv_f64.cu spmv/segscan/spmv_f32.cu spmv/segscan/spmv_dot_f64.cu \
	spmv/segscan/spmv_mixed.cu spmv/segscan/setup.cu
libmpcgi_la_SOURCES += $(segscan_cu)
MPCG_CU_FILES += $(segscan_cu)
endif
