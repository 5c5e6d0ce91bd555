# solver/Makefile.mk: the solver object, the CG loop, and the cgsolve command
libmpcgi_la_SOURCES += solver/solver.h solver/solver.c solver/cg.c
