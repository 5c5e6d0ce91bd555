# core/Makefile.mk: context, errors, memory, CSR, timers, vector kernels
libmpcgi_la_SOURCES += core/error.c core/error.h core/context.c core/context.h \
	core/alloc.c core/alloc.h core/csr.c core/csr.h core/matrix.c core/matrix.h \
	core/timer.c core/timer.h core/rng.h core/device.h core/vec.c core/vec.h \
	core/device_stub.c
