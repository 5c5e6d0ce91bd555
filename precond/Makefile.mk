# precond/Makefile.mk
