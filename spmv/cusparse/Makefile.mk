# spmv/cusparse/Makefile.mk: cuSPARSE's CSR SpMV (the vendor baseline), its fp32-values /
# fp64-vectors kernel for mixed precision, and cuSPARSE's sliced ELL (cusparsesell)
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += spmv/cusparse/cusparse.c spmv/cusparse/mixed.h spmv/cusparse/mixed.cu \
	spmv/cusparse/sell.c
MPCG_CU_FILES += spmv/cusparse/mixed.cu
endif
