# spmv/fold/Makefile.mk: the slot-major ELL with long rows folded (fold), and on its layout x
# gathered ahead of the product (gather), in core or streamed out of core (docs/backends/fold.md)
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += spmv/fold/fold.c spmv/fold/layout.c spmv/fold/impl.h \
	spmv/fold/kernels.h spmv/fold/fold.cuh spmv/fold/setup.h \
	spmv/fold/gather.c spmv/fold/gather_ooc.c spmv/fold/gather_ooc.h
fold_cu = spmv/fold/spmv_f64.cu spmv/fold/spmv_f32.cu spmv/fold/spmv_dot_f64.cu \
	spmv/fold/spmv_mixed.cu spmv/fold/setup.cu spmv/fold/gather_direct.cu
libmpcgi_la_SOURCES += $(fold_cu)
MPCG_CU_FILES += $(fold_cu)
endif
