# spmv/adaptive/Makefile.mk: CSR-vector with NT lanes per row, row binning and column-ordered
# row tiles (docs/backends/adaptive.md)
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += spmv/adaptive/adaptive.c spmv/adaptive/adaptive.h spmv/adaptive/plan.h \
	spmv/adaptive/rules.c spmv/adaptive/binning.c spmv/adaptive/tiles_setup.c \
	spmv/adaptive/emulate.c spmv/adaptive/impl.h spmv/adaptive/kernels.h \
	spmv/adaptive/device.cuh spmv/adaptive/spmv.cuh spmv/adaptive/rows.cuh \
	spmv/adaptive/block.c
adaptive_cu = spmv/adaptive/spmv_f64.cu spmv/adaptive/spmv_f32.cu \
	spmv/adaptive/spmv_dot_f64.cu spmv/adaptive/spmv_mixed.cu spmv/adaptive/setup.cu \
	spmv/adaptive/tiles.cu
libmpcgi_la_SOURCES += $(adaptive_cu)
MPCG_CU_FILES += $(adaptive_cu)
endif
