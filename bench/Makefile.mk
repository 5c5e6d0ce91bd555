# bench/Makefile.mk: benchmark programs (never run by make check)

# mmbench: Matrix Market reading speed (MB/s of text, nonzeros/s)
noinst_PROGRAMS += mmbench
mmbench_SOURCES = bench/mmbench.c
mmbench_LDADD = libmpcgi.la $(LIBS)
