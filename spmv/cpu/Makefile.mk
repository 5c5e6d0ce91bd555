# spmv/cpu/Makefile.mk: the CPU reference backend (OpenMP CSR)
libmpcgi_la_SOURCES += spmv/cpu/cpu.c
