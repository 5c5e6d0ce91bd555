# spmv/Makefile.mk: the SpMV backend interface (ops table, dispatcher, registry, row functors,
# describe) and one folder per backend, each listing its own files
libmpcgi_la_SOURCES += spmv/spmv.h spmv/spmv.c spmv/registry.c spmv/describe.c spmv/rows.h \
	spmv/warp_emulate.h
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += spmv/csr_rows.cuh
endif
include spmv/cpu/Makefile.mk
include spmv/cusparse/Makefile.mk
include spmv/adaptive/Makefile.mk
include spmv/segscan/Makefile.mk
include spmv/fold/Makefile.mk
include spmv/auto/Makefile.mk
include spmv/spmm/Makefile.mk
