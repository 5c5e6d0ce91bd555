! test/history_f.f90: the Fortran module's absolute tolerance and residual history, run by
! test/test_fortran.sh: an atol solve stops with MPCG_CONVERGED_ATOL, its history has one entry
! an iteration from 0 with the solve's final residuals, and a solve without atol does not stop
! there. Exit status 1 on a failed check (each printed), 2 on an error.
! SPDX-License-Identifier: BSD-3-Clause
program history_f
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_is_nan
  use mpcg
  implicit none
  character(len=*), parameter :: prog = 'history_f'
  type(c_ptr) :: ctx, a, s, s0
  type(mpcg_info) :: info, info0
  integer(c_int) :: st
  integer(c_int64_t) :: n, i
  integer(c_int64_t), allocatable :: it(:)
  real(c_double), allocatable :: b(:), x(:), rel(:), tru(:), t(:)
  integer :: bad

  bad = 0
  ctx = mpcg_f_context_create('cpu', st)
  if (st /= MPCG_SUCCESS) call fail('context')
  st = mpcg_f_matrix_generate(ctx, 'poisson2d:12', a)
  if (st /= MPCG_SUCCESS) call fail('generate')
  n = mpcg_matrix_n(a)
  allocate (b(n), x(n))
  b = 1
  ! ||b|| = 12: atol = 1e-4 is 8.3e-6 ||b||, far above tol 1e-12 ||b||
  st = mpcg_f_solver_create(ctx, a, s, precond=MPCG_PRECOND_NONE, tol=1e-12_c_double, &
                            atol=1e-4_c_double, history=.true.)
  if (st /= MPCG_SUCCESS) call fail('solver')
  st = mpcg_f_solve(s, b, x, info)
  if (st /= MPCG_SUCCESS) call fail('solve')
  st = mpcg_f_solver_get_history(s, it, rel, tru, t)
  if (st /= MPCG_SUCCESS) call fail('history')

  call check(info%reason == MPCG_CONVERGED_ATOL, 'reason MPCG_CONVERGED_ATOL')
  call check(info%true_relres*12 <= 1e-4_c_double, 'the true residual is below atol')
  call check(size(it, kind=c_int64_t) == info%iterations + 1, 'one entry an iteration')
  call check(all(it == [(i, i=0, info%iterations)]), 'iterations 0 .. k')
  call check(tru(1) == 1 .and. abs(rel(1) - 1) < 1e-12_c_double, 'entry 1: the initial residual')
  call check(tru(size(tru)) == info%true_relres, 'the last entry: the final true residual')
  call check(rel(size(rel)) == info%recurrence_relres, 'the last entry: the final recurrence')
  call check(all(ieee_is_nan(tru(2:size(tru) - 1))), 'no true residual in between')
  call check(all(t(2:) >= t(:size(t) - 1)), 'time does not go back')

  ! without atol (and without history) it goes on to tol
  st = mpcg_f_solver_create(ctx, a, s0, precond=MPCG_PRECOND_NONE, tol=1e-12_c_double)
  if (st /= MPCG_SUCCESS) call fail('solver 0')
  st = mpcg_f_solve(s0, b, x, info0)
  if (st /= MPCG_SUCCESS) call fail('solve 0')
  call check(info0%reason == MPCG_CONVERGED_RTOL .and. info0%iterations > info%iterations, &
             'tol alone takes more iterations')
  st = mpcg_f_solver_get_history(s0, it, rel, tru, t)
  call check(st == MPCG_SUCCESS .and. size(it) == 0, 'no history unless asked')
  call check(mpcg_solver_set_atol(s0, -1.0_c_double) == MPCG_ERR_INVALID_ARG, 'atol < 0 refused')
  ! the preconditioner by the library's names
  call check(mpcg_f_solver_set_precond_spec(s0, 'bjacobi:x') == MPCG_ERR_INVALID_ARG, &
             'bjacobi:x refused')
  call mpcg_clear_error(ctx)
  call check(mpcg_f_solver_set_precond_spec(s0, 'chebyshev:4') == MPCG_SUCCESS, 'chebyshev:4')
  st = mpcg_f_solve(s0, b, x, info0)
  call check(st == MPCG_SUCCESS .and. info0%reason == MPCG_CONVERGED_RTOL .and. &
             mpcg_f_text(info0%precond) == 'chebyshev', 'a chebyshev:4 solve')

  write (*, '(a,i0,a,i0,a,es10.3)') 'history_f: atol stops at ', info%iterations, &
    ' iterations (tol alone ', info0%iterations, '), last true relres ', info%true_relres
  call mpcg_solver_destroy(s0)
  call mpcg_solver_destroy(s)
  call mpcg_matrix_destroy(a)
  call mpcg_context_destroy(ctx)
  deallocate (b, x, it, rel, tru, t)
  if (bad /= 0) stop 1

contains

  include 'check_f.inc'

end program history_f
