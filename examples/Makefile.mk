# examples/Makefile.mk
