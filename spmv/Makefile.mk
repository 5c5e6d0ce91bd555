# spmv/Makefile.mk: the SpMV backend table, dispatcher, registry and backends
libmpcgi_la_SOURCES += spmv/spmv.h spmv/spmv.c spmv/registry.c spmv/cpu.c spmv/rows.h
libmpcgi_la_SOURCES += spmv/describe.c
# many small systems: the batched SpMM (docs/batched.md); its kernel below
libmpcgi_la_SOURCES += spmv/batch_spmm.c spmv/batch_spmm.h
# auto: the candidates timed at setup, the rule, the budget and the cache; docs/backends.md
libmpcgi_la_SOURCES += spmv/auto.c spmv/auto.h spmv/auto_choose.c spmv/auto_cache.c spmv/auto_copy.c
if MPCG_HAVE_CUDA
libmpcgi_la_SOURCES += spmv/batch_spmm.cu
MPCG_CU_FILES += spmv/batch_spmm.cu
libmpcgi_la_SOURCES += spmv/cusparse.c spmv/csr_rows.cuh spmv/cusparse_mixed.h spmv/cusparse_mixed.cu \
	spmv/cusparse_sell.c
# adaptive: CSR-vector with NT threads per row and row binning (seed 003); docs/backends.md
libmpcgi_la_SOURCES += spmv/adaptive.c spmv/adaptive.h spmv/adaptive_plan.h \
	spmv/adaptive_rules.c spmv/adaptive_binning.c spmv/adaptive_tiles_setup.c \
	spmv/adaptive_emulate.c spmv/adaptive_impl.h spmv/adaptive_kernels.h \
	spmv/adaptive_device.cuh spmv/adaptive_spmv.cuh spmv/adaptive_spmv_f64.cu \
	spmv/adaptive_spmv_f32.cu spmv/adaptive_spmv_dot_f64.cu spmv/adaptive_spmv_mixed.cu \
	spmv/adaptive_setup.cu spmv/adaptive_tiles.cu spmv/adaptive_rows.cuh
# the block product (SpMM, seed 000's sub-warp per row) and its CPU emulation; docs/block.md
libmpcgi_la_SOURCES += spmv/spmm.h spmv/spmm.cu spmv/spmm_emulate.c spmv/adaptive_block.c
MPCG_CU_FILES += spmv/spmm.cu
# segscan: nonzero segments with a segmented reduction (seed 001); docs/backends.md
libmpcgi_la_SOURCES += spmv/segscan.c spmv/segscan_emulate.c spmv/segscan_impl.h \
	spmv/segscan_kernels.h spmv/segscan.cuh spmv/segscan_f64.cu spmv/segscan_f32.cu \
	spmv/segscan_dot_f64.cu spmv/segscan_mixed.cu spmv/segscan_setup.cu
# fold: the Fold method's slot-major ELL, long rows folded (seed 002); docs/backends.md
libmpcgi_la_SOURCES += spmv/fold.c spmv/fold_layout.c spmv/fold_impl.h spmv/fold_kernels.h \
	spmv/fold.cuh spmv/fold_f64.cu spmv/fold_f32.cu spmv/fold_dot_f64.cu spmv/fold_mixed.cu \
	spmv/warp_emulate.h spmv/fold_setup.h spmv/fold_setup.cu
MPCG_CU_FILES += spmv/fold_f64.cu spmv/fold_f32.cu spmv/fold_dot_f64.cu spmv/fold_mixed.cu \
	spmv/fold_setup.cu
# gather: the fold layout with x pre-gathered (seed 002's memory accelerator); docs/backends.md
libmpcgi_la_SOURCES += spmv/gather.c spmv/gather_direct.cu spmv/gather_ooc.c spmv/gather_ooc.h
MPCG_CU_FILES += spmv/gather_direct.cu
MPCG_CU_FILES += spmv/segscan_f64.cu spmv/segscan_f32.cu spmv/segscan_dot_f64.cu \
	spmv/segscan_mixed.cu spmv/segscan_setup.cu
MPCG_CU_FILES += spmv/cusparse_mixed.cu spmv/adaptive_spmv_f64.cu spmv/adaptive_spmv_f32.cu \
	spmv/adaptive_spmv_dot_f64.cu spmv/adaptive_spmv_mixed.cu \
	spmv/adaptive_setup.cu spmv/adaptive_tiles.cu
endif
