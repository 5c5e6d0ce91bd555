# examples/Makefile.mk: programs that embed the C API
noinst_PROGRAMS += examples/heat
examples_heat_SOURCES = examples/heat.c
examples_heat_LDADD = libmpcg.la $(LIBS)
