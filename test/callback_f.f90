! test/callback_f.f90: the caller's callbacks through the Fortran module, run by
! test/test_fortran.sh: Jacobi as a preconditioner callback gives the library's Jacobi bit for
! bit (CPU, the host variant), the iterate callback sees iterations 1 .. k and the final x, the
! monitor every iteration from 0, and a callback that returns 1 stops the solve.
! Exit status 1 on a failed check (each printed), 2 on an error.
! SPDX-License-Identifier: BSD-3-Clause
module callback_f_state
  use, intrinsic :: iso_c_binding
  implicit none
  integer(c_int64_t) :: n = 0, last_it = -1, monitored = 0, applies = 0, fail_at = -1
  real(c_double), allocatable :: dinv(:), x_last(:)
contains
  ! z = D^-1 r
  function jacobi(r, z, user) bind(C) result(rc)
    type(c_ptr), value :: r, z, user
    integer(c_int) :: rc
    real(c_double), pointer :: rr(:), zz(:)
    call c_f_pointer(r, rr, [n])
    call c_f_pointer(z, zz, [n])
    zz = dinv*rr
    applies = applies + 1
    rc = 0
    if (applies == fail_at) rc = 1
  end function
  function iterate(iteration, x, user) bind(C) result(rc)
    integer(c_int64_t), value :: iteration
    type(c_ptr), value :: x, user
    integer(c_int) :: rc
    real(c_double), pointer :: xx(:)
    call c_f_pointer(x, xx, [n])
    rc = 0
    if (iteration /= last_it + 1) rc = 2 ! out of order: stop the solve
    last_it = iteration
    x_last = xx
  end function
  subroutine monitor(iteration, relres, user) bind(C)
    integer(c_int64_t), value :: iteration
    real(c_double), value :: relres
    type(c_ptr), value :: user
    if (iteration == monitored .and. relres >= 0) monitored = monitored + 1
  end subroutine
end module callback_f_state

program callback_f
  use, intrinsic :: iso_c_binding
  use mpcg
  use callback_f_state
  implicit none
  character(len=*), parameter :: prog = 'callback_f'
  type(c_ptr) :: ctx, a, s, sref
  type(mpcg_info) :: info, ref
  integer(c_int) :: st
  real(c_double), allocatable :: b(:), x(:), y(:), diag(:)
  type(c_ptr) :: prp, pci, pval
  integer(c_int64_t), pointer :: rp(:)
  integer(c_int32_t), pointer :: ci(:)
  real(c_double), pointer :: val(:)
  integer(c_int64_t) :: i, k
  integer :: bad
  character(len=1024) :: path

  bad = 0
  call get_command_argument(1, path)
  ctx = mpcg_f_context_create('cpu', st)
  if (st /= MPCG_SUCCESS) call fail('context')
  st = mpcg_f_matrix_read_mm(ctx, trim(path), a)
  if (st /= MPCG_SUCCESS) call fail('read '//trim(path))
  n = mpcg_matrix_n(a)
  allocate (b(n), x(n), y(n), diag(n), dinv(n), x_last(n))
  ! the diagonal from the CSR view (0-based row pointers and 32-bit column indices)
  st = mpcg_matrix_csr(a, prp, pci, pval)
  if (st /= MPCG_SUCCESS) call fail('csr')
  call c_f_pointer(prp, rp, [n + 1])
  call c_f_pointer(pci, ci, [rp(n + 1)])
  call c_f_pointer(pval, val, [rp(n + 1)])
  do i = 1, n
    do k = rp(i) + 1, rp(i + 1)
      if (ci(k) == i - 1) diag(i) = val(k)
    end do
  end do
  dinv = 1/diag
  b = 1

  ! the library's Jacobi
  st = mpcg_f_solver_create(ctx, a, sref, precond=MPCG_PRECOND_JACOBI)
  if (st /= MPCG_SUCCESS) call fail('solver (jacobi)')
  st = mpcg_f_solve(sref, b, y, ref)
  if (st /= MPCG_SUCCESS) call fail('solve (jacobi)')

  ! the same through the callbacks
  st = mpcg_f_solver_create(ctx, a, s)
  if (st /= MPCG_SUCCESS) call fail('solver')
  call check(mpcg_solver_set_precond_callback(s, c_funloc(jacobi), c_null_ptr) == MPCG_SUCCESS, &
             'set_precond_callback')
  call check(mpcg_solver_set_iterate_callback(s, c_funloc(iterate), c_null_ptr) == MPCG_SUCCESS, &
             'set_iterate_callback')
  call check(mpcg_solver_set_monitor(s, 1_c_int64_t, c_funloc(monitor), c_null_ptr) == &
             MPCG_SUCCESS, 'set_monitor')
  last_it = 0
  st = mpcg_f_solve(s, b, x, info)
  if (st /= MPCG_SUCCESS) call fail('solve (callbacks)')
  k = info%iterations
  call check(info%reason == MPCG_CONVERGED_RTOL .and. k == ref%iterations, &
             'the callback converges in the library Jacobi''s iterations')
  call check(all(x == y), 'the same x, bit for bit')
  call check(mpcg_f_text(info%precond) == 'callback' .and. mpcg_f_text(info%variant) == 'host', &
             'info: precond callback, variant host')
  call check(last_it == k .and. all(x_last == x), 'the iterate callback saw 1 .. k and the final x')
  call check(monitored == k + 1, 'the monitor saw 0 .. k')
  call check(applies >= k, 'one apply an iteration at least')

  ! a callback that returns 1 stops the solve with MPCG_ERR_INVALID_ARG
  applies = 0
  fail_at = 3
  last_it = 0
  st = mpcg_f_solve(s, b, x, info)
  call check(st == MPCG_ERR_INVALID_ARG .and. applies == 3, 'a failing callback stops the solve')
  call mpcg_clear_error(ctx)

  ! removed: the library's preconditioner again
  fail_at = -1
  call check(mpcg_solver_set_precond_callback(s, c_null_funptr, c_null_ptr) == MPCG_SUCCESS .and. &
             mpcg_solver_set_iterate_callback(s, c_null_funptr, c_null_ptr) == MPCG_SUCCESS, &
             'callbacks removed')
  st = mpcg_f_solve(s, b, x, info)
  call check(st == MPCG_SUCCESS .and. mpcg_f_text(info%precond) /= 'callback', &
             'without them the solver''s own preconditioner')

  write (*, '(a,i0,a,i0,a,i0,a)') 'callback_f: ', k, ' iterations (library jacobi ', &
    ref%iterations, '), ', monitored, ' monitor calls'
  call mpcg_solver_destroy(s)
  call mpcg_solver_destroy(sref)
  call mpcg_matrix_destroy(a)
  call mpcg_context_destroy(ctx)
  deallocate (b, x, y, diag, dinv, x_last)
  if (bad /= 0) stop 1

contains

  include 'check_f.inc'

end program callback_f
