! fortran/example_mm.f90: solve A x = ones with Jacobi-preconditioned CG, A from a Matrix Market file
! SPDX-License-Identifier: BSD-3-Clause
! Usage: example_mm FILE.mtx [DEVICE]   (DEVICE: auto (default), cpu, cuda, cuda:N)
! Prints the iterations, the reason and the true relative residual (the library's, and one
! recomputed here from A's CSR arrays); exits 1 if the solve did not converge, 2 on an error.
program example_mm
  use, intrinsic :: iso_c_binding
  use mpcg
  implicit none
  character(len=4096) :: path, device
  type(c_ptr) :: ctx, a, s, prp, pci, pval
  type(mpcg_info) :: info
  integer(c_int) :: st
  integer(c_int64_t) :: n, nnz, i, k
  integer(c_int64_t), pointer :: rp(:)
  integer(c_int32_t), pointer :: ci(:)
  real(c_double), pointer :: val(:)
  real(c_double), allocatable :: b(:), x(:)
  real(c_double) :: r2, b2, ax

  if (command_argument_count() < 1) then
    write (*, '(a)') 'usage: example_mm FILE.mtx [DEVICE]'
    stop 2
  end if
  call get_command_argument(1, path)
  device = 'auto'
  if (command_argument_count() >= 2) call get_command_argument(2, device)

  ctx = mpcg_f_context_create(trim(device), st)
  if (st /= MPCG_SUCCESS) call fail(c_null_ptr, 'context')
  st = mpcg_f_matrix_read_mm(ctx, trim(path), a)
  if (st /= MPCG_SUCCESS) call fail(ctx, 'read')
  n = mpcg_matrix_n(a)
  nnz = mpcg_matrix_nnz(a)
  st = mpcg_f_solver_create(ctx, a, s, precond=MPCG_PRECOND_JACOBI, tol=1e-8_c_double)
  if (st /= MPCG_SUCCESS) call fail(ctx, 'solver')

  allocate (b(n), x(n))
  b = 1.0_c_double
  x = 0.0_c_double
  st = mpcg_f_solve(s, b, x, info)
  if (st /= MPCG_SUCCESS) call fail(ctx, 'solve')

  ! the true residual once more, here, from the library's (0-based) CSR view of A
  st = mpcg_matrix_csr(a, prp, pci, pval)
  if (st /= MPCG_SUCCESS) call fail(ctx, 'csr')
  call c_f_pointer(prp, rp, [n + 1])
  call c_f_pointer(pci, ci, [nnz])
  call c_f_pointer(pval, val, [nnz])
  r2 = 0
  b2 = 0
  do i = 1, n
    ax = 0
    do k = rp(i) + 1, rp(i + 1)
      ax = ax + val(k)*x(ci(k) + 1)
    end do
    r2 = r2 + (b(i) - ax)**2
    b2 = b2 + b(i)**2
  end do

  write (*, '(a,a,a,i0,a,i0)') 'matrix      ', trim(path), ': n = ', n, ', nnz = ', nnz
  write (*, '(a,a)') 'device      ', mpcg_f_context_device_name(ctx)
  write (*, '(a,a,a,a)') 'solver      cg, spmv ', mpcg_f_text(info%backend), ', precond ', &
    mpcg_f_text(info%precond)
  write (*, '(a,i0)') 'iterations  ', info%iterations
  write (*, '(a,a,a,a,a)') 'reason      ', mpcg_f_reason_name(info%reason), ' (', &
    mpcg_f_reason_string(info%reason), ')'
  write (*, '(a,es11.5,a,es11.5,a)') 'true relres ', info%true_relres, &
    ' (recomputed in Fortran: ', sqrt(r2/b2), ')'

  call mpcg_solver_destroy(s)
  call mpcg_matrix_destroy(a)
  call mpcg_context_destroy(ctx)
  deallocate (b, x)
  if (info%converged /= 1) stop 1

contains

  subroutine fail(c, what)
    type(c_ptr), intent(in) :: c
    character(len=*), intent(in) :: what
    write (*, '(a,a,a,a,a,a)') 'example_mm: ', what, ': ', mpcg_f_status_name(st), ': ', &
      mpcg_f_last_error(c)
    stop 2
  end subroutine

end program example_mm
