# precond/Makefile.mk: the preconditioners (none, Jacobi, block-Jacobi, Chebyshev), one ops
# table per kind listed in precond/registry.c: setup on the host, apply on the host or the
# device in fp64 or fp32
libmpcgi_la_SOURCES += precond/precond.h precond/precond_impl.h precond/precond.c \
	precond/registry.c precond/none.c precond/jacobi.c precond/bjacobi.c \
	precond/bjacobi_impl.h precond/chebyshev.c
# block-Jacobi's Cholesky (empty where configured --without-lapacke: bjacobi then refuses)
libmpcgi_la_LIBADD += $(LAPACKE_LIBS)
# the device applies (kernels and their launches), or their stub in a CPU-only build
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += precond/precond_device.c precond/precond_cuda.h precond/precond_kernels.cu
MPCG_CU_FILES += precond/precond_kernels.cu
else
libmpcgi_la_SOURCES += precond/precond_device_stub.c
endif
