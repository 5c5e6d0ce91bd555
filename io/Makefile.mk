# io/Makefile.mk: Matrix Market reading and writing, and generated test matrices
libmpcgi_la_SOURCES += io/lines.c io/lines.h io/mm.h io/mm_num.c io/mm_num.h \
	io/mm_header.c io/mm_entries.c io/mm_read.c io/mm_write.c io/generate.c io/generate.h \
	io/generate_graph.c
