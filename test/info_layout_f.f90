! test/info_layout_f.f90: the Fortran module's layout of type(mpcg_info) (c_sizeof and the
! offset of every field), for test/test_fortran.sh, which compares it with test/info_layout_c.c's
! SPDX-License-Identifier: BSD-3-Clause
program info_layout_f
  use, intrinsic :: iso_c_binding
  use mpcg
  implicit none
  type(mpcg_info), target :: info
  integer(c_intptr_t) :: base
  base = transfer(c_loc(info), base)
  write (*, '(a,i0)') 'size ', c_sizeof(info)
  call field('reason', transfer(c_loc(info%reason), base))
  call field('converged', transfer(c_loc(info%converged), base))
  call field('iterations', transfer(c_loc(info%iterations), base))
  call field('true_relres', transfer(c_loc(info%true_relres), base))
  call field('recurrence_relres', transfer(c_loc(info%recurrence_relres), base))
  call field('setup_time_s', transfer(c_loc(info%setup_time_s), base))
  call field('solve_time_s', transfer(c_loc(info%solve_time_s), base))
  call field('backend', transfer(c_loc(info%backend(1)), base))
  call field('precision', transfer(c_loc(info%precision), base))
  call field('residual_replacements', transfer(c_loc(info%residual_replacements), base))
  call field('bytes_per_iteration', transfer(c_loc(info%bytes_per_iteration), base))
  call field('variant', transfer(c_loc(info%variant(1)), base))
  call field('variant_reason', transfer(c_loc(info%variant_reason(1)), base))
  call field('spmvs', transfer(c_loc(info%spmvs), base))
  call field('spmvs_fp64', transfer(c_loc(info%spmvs_fp64), base))
  call field('mixed_strategy', transfer(c_loc(info%mixed_strategy(1)), base))
  call field('precision_fallback', transfer(c_loc(info%precision_fallback), base))
  call field('fallback_iteration', transfer(c_loc(info%fallback_iteration), base))
  call field('storage_fallback', transfer(c_loc(info%storage_fallback(1)), base))
  call field('mixed_head_iterations', transfer(c_loc(info%mixed_head_iterations), base))
  call field('precond', transfer(c_loc(info%precond(1)), base))
  call field('precond_describe', transfer(c_loc(info%precond_describe(1)), base))
  call field('precond_setup_time_s', transfer(c_loc(info%precond_setup_time_s), base))
  call field('precond_spmvs', transfer(c_loc(info%precond_spmvs), base))
  call field('spmv_describe', transfer(c_loc(info%spmv_describe(1)), base))
  write (*, '(a,i0)') 'enum MPCG_SUCCESS ', MPCG_SUCCESS
  write (*, '(a,i0)') 'enum MPCG_ERR_INVALID_ARG ', MPCG_ERR_INVALID_ARG
  write (*, '(a,i0)') 'enum MPCG_ERR_INVALID_STATE ', MPCG_ERR_INVALID_STATE
  write (*, '(a,i0)') 'enum MPCG_ERR_NOT_SUPPORTED ', MPCG_ERR_NOT_SUPPORTED
  write (*, '(a,i0)') 'enum MPCG_ERR_HOST_ALLOC ', MPCG_ERR_HOST_ALLOC
  write (*, '(a,i0)') 'enum MPCG_ERR_DEVICE_ALLOC ', MPCG_ERR_DEVICE_ALLOC
  write (*, '(a,i0)') 'enum MPCG_ERR_NO_DEVICE ', MPCG_ERR_NO_DEVICE
  write (*, '(a,i0)') 'enum MPCG_ERR_CUDA ', MPCG_ERR_CUDA
  write (*, '(a,i0)') 'enum MPCG_ERR_CUSPARSE ', MPCG_ERR_CUSPARSE
  write (*, '(a,i0)') 'enum MPCG_ERR_CUBLAS ', MPCG_ERR_CUBLAS
  write (*, '(a,i0)') 'enum MPCG_ERR_IO ', MPCG_ERR_IO
  write (*, '(a,i0)') 'enum MPCG_ERR_PARSE ', MPCG_ERR_PARSE
  write (*, '(a,i0)') 'enum MPCG_ERR_NOT_CONVERGED ', MPCG_ERR_NOT_CONVERGED
  write (*, '(a,i0)') 'enum MPCG_ERR_INTERNAL ', MPCG_ERR_INTERNAL
  write (*, '(a,i0)') 'enum MPCG_STATUS_COUNT ', MPCG_STATUS_COUNT
  write (*, '(a,i0)') 'enum MPCG_PRECISION_FP64 ', MPCG_PRECISION_FP64
  write (*, '(a,i0)') 'enum MPCG_PRECISION_FP32 ', MPCG_PRECISION_FP32
  write (*, '(a,i0)') 'enum MPCG_PRECISION_MIXED ', MPCG_PRECISION_MIXED
  write (*, '(a,i0)') 'enum MPCG_PRECOND_NONE ', MPCG_PRECOND_NONE
  write (*, '(a,i0)') 'enum MPCG_PRECOND_JACOBI ', MPCG_PRECOND_JACOBI
  write (*, '(a,i0)') 'enum MPCG_PRECOND_BJACOBI ', MPCG_PRECOND_BJACOBI
  write (*, '(a,i0)') 'enum MPCG_PRECOND_CHEBYSHEV ', MPCG_PRECOND_CHEBYSHEV
  write (*, '(a,i0)') 'enum MPCG_PRECOND_AUTO ', MPCG_PRECOND_AUTO
  write (*, '(a,i0)') 'enum MPCG_DEVICE_CPU ', MPCG_DEVICE_CPU
  write (*, '(a,i0)') 'enum MPCG_DEVICE_CUDA ', MPCG_DEVICE_CUDA
  write (*, '(a,i0)') 'enum MPCG_REASON_NONE ', MPCG_REASON_NONE
  write (*, '(a,i0)') 'enum MPCG_CONVERGED_RTOL ', MPCG_CONVERGED_RTOL
  write (*, '(a,i0)') 'enum MPCG_CONVERGED_ZERO_RHS ', MPCG_CONVERGED_ZERO_RHS
  write (*, '(a,i0)') 'enum MPCG_CONVERGED_ATOL ', MPCG_CONVERGED_ATOL
  write (*, '(a,i0)') 'enum MPCG_DIVERGED_MAX_ITER ', MPCG_DIVERGED_MAX_ITER
  write (*, '(a,i0)') 'enum MPCG_DIVERGED_BREAKDOWN ', MPCG_DIVERGED_BREAKDOWN
  write (*, '(a,i0)') 'enum MPCG_DIVERGED_INDEFINITE_MATRIX ', MPCG_DIVERGED_INDEFINITE_MATRIX
  write (*, '(a,i0)') 'enum MPCG_DIVERGED_NAN ', MPCG_DIVERGED_NAN
  write (*, '(a,i0)') 'enum MPCG_DIVERGED_STAGNATION ', MPCG_DIVERGED_STAGNATION
  write (*, '(a,i0)') 'enum MPCG_DIVERGED_INDEFINITE_PC ', MPCG_DIVERGED_INDEFINITE_PC
  write (*, '(a,i0)') 'enum MPCG_LOG_ERROR ', MPCG_LOG_ERROR
  write (*, '(a,i0)') 'enum MPCG_LOG_WARN ', MPCG_LOG_WARN
  write (*, '(a,i0)') 'enum MPCG_LOG_INFO ', MPCG_LOG_INFO
  write (*, '(a,i0)') 'enum MPCG_LOG_DEBUG ', MPCG_LOG_DEBUG
  write (*, '(a,i0)') 'enum MPCG_GUESS_ZERO ', MPCG_GUESS_ZERO
  write (*, '(a,i0)') 'enum MPCG_GUESS_PROVIDED ', MPCG_GUESS_PROVIDED
  write (*, '(a,i0)') 'enum MPCG_INDEX_INT32 ', MPCG_INDEX_INT32
  write (*, '(a,i0)') 'enum MPCG_INDEX_INT64 ', MPCG_INDEX_INT64
  write (*, '(a,i0)') 'enum MPCG_CHECK_DIAGONAL ', MPCG_CHECK_DIAGONAL
  write (*, '(a,i0)') 'enum MPCG_CHECK_SYMMETRY ', MPCG_CHECK_SYMMETRY
contains
  subroutine field(name, addr)
    character(len=*), intent(in) :: name
    integer(c_intptr_t), intent(in) :: addr
    write (*, '(a,a,a,i0)') 'offset ', name, ' ', addr - base
  end subroutine
end program info_layout_f
