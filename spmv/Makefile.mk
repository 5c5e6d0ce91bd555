# spmv/Makefile.mk: the SpMV backend table, dispatcher, registry and backends
libmpcgi_la_SOURCES += spmv/spmv.h spmv/spmv.c spmv/registry.c spmv/cpu.c
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += spmv/cusparse.c
endif
