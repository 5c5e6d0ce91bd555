# spmv/auto/Makefile.mk: "auto": the candidates timed at setup, the rule, the trial's budget,
# its device copy of A and the cache of decisions (docs/backends/auto.md)
libmpcgi_la_SOURCES += spmv/auto/auto.c spmv/auto/auto.h spmv/auto/choose.c \
	spmv/auto/cache.c spmv/auto/copy.c
