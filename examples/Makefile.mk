# examples/Makefile.mk: programs that embed the C API
noinst_PROGRAMS += examples/heat
examples_heat_SOURCES = examples/heat.c
examples_heat_LDADD = libmpcg.la $(LIBS)
noinst_PROGRAMS += examples/batch_cells
examples_batch_cells_SOURCES = examples/batch_cells.c
examples_batch_cells_LDADD = libmpcg.la $(LIBS)
# a matrix on the GPU read in place (mpcg_matrix_view_device_csr), on the program's stream: it
# calls the CUDA runtime itself, so it is built in CUDA builds only
if MPCG_HAVE_CUDA
noinst_PROGRAMS += examples/device_csr
examples_device_csr_SOURCES = examples/device_csr.c
examples_device_csr_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
examples_device_csr_LDADD = libmpcg.la $(CUDA_LIBS) $(LIBS)
endif
