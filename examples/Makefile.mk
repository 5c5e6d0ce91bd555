# examples/Makefile.mk: programs that embed the C API
noinst_PROGRAMS += examples/heat
examples_heat_SOURCES = examples/heat.c
examples_heat_LDADD = libmpcg.la $(LIBS)
noinst_PROGRAMS += examples/batch_cells
examples_batch_cells_SOURCES = examples/batch_cells.c
examples_batch_cells_LDADD = libmpcg.la $(LIBS)
