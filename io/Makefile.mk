# io/Makefile.mk
