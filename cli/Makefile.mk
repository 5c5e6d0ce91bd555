# cli/Makefile.mk: the cgsolve command, a program of the public API (mpcg.h) alone
bin_PROGRAMS += cgsolve
cgsolve_SOURCES = cli/cgsolve.c cli/cgsolve.h cli/args.c cli/report.c cli/info.c cli/block.c \
	cli/history.c cli/plot.c cli/progress.c cli/batch.c cli/choice.c
# linked as any user program is (test/test_cgsolve.sh checks its objects)
cgsolve_LDADD = libmpcg.la $(LIBS)
