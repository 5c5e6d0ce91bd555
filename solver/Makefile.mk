# solver/Makefile.mk: the solver object, the CG loops (CPU and fused GPU), and the cgsolve command
libmpcgi_la_SOURCES += solver/solver.h solver/solver.c solver/cg.c solver/options.c solver/options.h
# the fused GPU iteration (solver/cg_fused.c), or its stub in a CPU-only build
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += solver/cg_fused.c
else
libmpcgi_la_SOURCES += solver/cg_fused_stub.c
endif

bin_PROGRAMS += cgsolve
cgsolve_SOURCES = solver/cgsolve.c solver/cgsolve.h solver/cgsolve_args.c \
	solver/cgsolve_report.c solver/cgsolve_info.c
# the public API only, as any user program (test/test_cgsolve.sh checks its objects)
cgsolve_LDADD = libmpcg.la $(LIBS)
