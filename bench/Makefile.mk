# bench/Makefile.mk
