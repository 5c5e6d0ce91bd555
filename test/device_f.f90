! test/device_f.f90: the module's device-array interfaces (mpcg_matrix_view_device_csr,
! mpcg_matrix_update_values_device, mpcg_solve_device, mpcg_context_set_stream) reach libmpcg
! with their arguments in order, run by test/test_fortran.sh on a CPU context: host arrays are
! refused with the library's status and a message naming the call, and no matrix is returned.
! (A GPU run of the same calls is examples/device_csr.c's, in C.) Exit status 1 on a failed
! check (each printed), 2 on an error.
! SPDX-License-Identifier: BSD-3-Clause
program device_f
  use, intrinsic :: iso_c_binding
  use mpcg
  implicit none
  character(len=*), parameter :: prog = 'device_f'
  type(c_ptr) :: ctx, a, v, s
  type(mpcg_info) :: info
  integer(c_int) :: st
  integer(c_int32_t), target :: rp(4) = [0, 1, 2, 3], col(3) = [0, 1, 2]
  real(c_double), target :: val(3) = [2, 2, 2], b(3) = 1, x(3)
  character(len=:), allocatable :: msg
  integer :: bad

  bad = 0
  ctx = mpcg_f_context_create('cpu', st)
  if (st /= MPCG_SUCCESS) call fail('context')
  ! host arrays posing as device arrays on a CPU context
  v = c_null_ptr
  st = mpcg_matrix_view_device_csr(ctx, 3_c_int64_t, 3_c_int64_t, c_loc(rp), MPCG_INDEX_INT32, &
                                   c_loc(col), c_loc(val), v)
  msg = mpcg_f_last_error(ctx)
  write (*, '(a,a)') 'view on a CPU context: ', msg
  call check((st == MPCG_ERR_INVALID_STATE .or. st == MPCG_ERR_NO_DEVICE) .and. &
             .not. c_associated(v), 'the view is refused, nothing returned')
  call check(index(msg, 'GPU') > 0 .or. index(msg, 'CUDA') > 0, 'the message says why')
  call mpcg_clear_error(ctx)
  ! a host matrix: its values do not come from the device, its solver does not solve device arrays
  st = mpcg_f_matrix_from_csr(ctx, 3, [1, 2, 3, 4], [1, 2, 3], val, a)
  if (st /= MPCG_SUCCESS) call fail('matrix')
  st = mpcg_matrix_update_values_device(a, c_loc(val))
  call check(st == MPCG_ERR_INVALID_STATE, 'update_values_device on host CSR is refused')
  call check(index(mpcg_f_last_error(ctx), 'mpcg_matrix_update_values') > 0, &
             'its message names the host call')
  call mpcg_clear_error(ctx)
  st = mpcg_f_solver_create(ctx, a, s)
  if (st /= MPCG_SUCCESS) call fail('solver')
  st = mpcg_solve_device(s, c_loc(b), c_loc(x), info)
  call check(st /= MPCG_SUCCESS, 'solve_device on a CPU context is refused')
  call mpcg_clear_error(ctx)
  st = mpcg_context_set_stream(ctx, c_null_ptr)
  write (*, '(a,a)') 'set_stream(NULL) on a CPU context: ', mpcg_f_status_name(st)
  call check(st == MPCG_SUCCESS .or. st == MPCG_ERR_INVALID_STATE, 'set_stream answers')
  ! the host solve still works after the refusals
  st = mpcg_f_solve(s, b, x, info)
  call check(st == MPCG_SUCCESS .and. info%converged /= 0 .and. abs(x(2) - 0.5_c_double) < 1e-12, &
             'the host solve still works')
  call mpcg_solver_destroy(s)
  call mpcg_matrix_destroy(a)
  call mpcg_context_destroy(ctx)
  deallocate (msg)
  if (bad /= 0) stop 1

contains

  include 'check_f.inc'

end program device_f
