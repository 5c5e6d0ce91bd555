# solver/Makefile.mk: the solver object, the CG loop, and the cgsolve command
libmpcgi_la_SOURCES += solver/solver.h solver/solver.c solver/cg.c

bin_PROGRAMS += cgsolve
cgsolve_SOURCES = solver/cgsolve.c solver/cgsolve.h solver/cgsolve_report.c
cgsolve_LDADD = libmpcg.la
