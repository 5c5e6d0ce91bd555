# solver/Makefile.mk
