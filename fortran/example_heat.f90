! fortran/example_heat.f90: implicit heat equation on a square, one CG solve per time step
! SPDX-License-Identifier: BSD-3-Clause
! The Fortran twin of examples/heat.c: u_t = Laplace(u) on the unit square, u = 0 on the
! boundary, backward Euler (I + dt L) u_new = u_old with L the 5-point Laplacian / h^2. The
! matrix is assembled once as 1-based CSR (mpcg_f_matrix_from_csr), and every step the time step
! grows, so the values are replaced (mpcg_f_matrix_update_values: same pattern, no new
! analysis) and the same solver solves again with the old state as its guess.
! Usage: example_heat [N [STEPS [DEVICE]]]. Exits 1 if a step does not converge, 2 on an error.
program example_heat
  use, intrinsic :: iso_c_binding
  use mpcg
  implicit none
  integer :: n_grid, steps, n, step, r, i, j, k
  character(len=64) :: arg, device
  integer, allocatable :: rp(:), col(:)
  real(c_double), allocatable :: val(:), u(:), unew(:)
  real(c_double) :: dt, xr, yr
  type(c_ptr) :: ctx, a, s
  type(mpcg_info) :: info
  integer(c_int) :: st

  n_grid = 32
  steps = 6
  device = 'auto'
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n_grid
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) steps
  end if
  if (command_argument_count() >= 3) call get_command_argument(3, device)
  if (n_grid < 2 .or. steps < 1) then
    write (*, '(a)') 'usage: example_heat [N >= 2 [STEPS >= 1 [DEVICE]]]'
    stop 2
  end if
  n = n_grid*n_grid
  allocate (rp(n + 1), col(5*n), val(5*n), u(n), unew(n))
  do r = 1, n ! initial temperature: a hot square around the center
    xr = real(mod(r - 1, n_grid) + 1, c_double)/(n_grid + 1)
    yr = real((r - 1)/n_grid + 1, c_double)/(n_grid + 1)
    u(r) = merge(1.0_c_double, 0.0_c_double, abs(xr - 0.45) < 0.2 .and. abs(yr - 0.55) < 0.2)
  end do

  dt = 1e-4_c_double
  call assemble(dt)
  ctx = mpcg_f_context_create(trim(device), st)
  if (st /= MPCG_SUCCESS) call fail(c_null_ptr, 'context')
  st = mpcg_f_matrix_from_csr(ctx, n, rp, col, val, a)
  if (st /= MPCG_SUCCESS) call fail(ctx, 'matrix')
  st = mpcg_f_solver_create(ctx, a, s, precond=MPCG_PRECOND_JACOBI, tol=1e-10_c_double)
  if (st == MPCG_SUCCESS) st = mpcg_solver_set_initial_guess(s, MPCG_GUESS_PROVIDED)
  if (st /= MPCG_SUCCESS) call fail(ctx, 'solver')
  write (*, '(a,i0,a,i0,a,i0,a,a)') 'heat: ', n_grid, ' x ', n_grid, ' grid, ', steps, &
    ' steps on ', mpcg_f_context_device_name(ctx)

  do step = 0, steps - 1
    if (step > 0) then ! a longer time step: new values, same pattern
      dt = dt*1.5_c_double
      call assemble(dt)
      st = mpcg_f_matrix_update_values(a, val)
      if (st /= MPCG_SUCCESS) call fail(ctx, 'update values')
    end if
    unew = u ! the old state is the guess
    st = mpcg_f_solve(s, u, unew, info)
    if (st /= MPCG_SUCCESS) call fail(ctx, 'solve')
    if (info%converged /= 1) then
      write (*, '(a,i0,a,a)') 'example_heat: step ', step, ': ', &
        mpcg_f_reason_string(info%reason)
      stop 1
    end if
    u = unew
    write (*, '(a,i3,a,es8.1,a,i3,a,es9.2,a,f9.6)') 'step ', step, '  dt ', dt, &
      '  iterations ', info%iterations, '  true relres ', info%true_relres, &
      '  u(center) ', u((n_grid/2)*n_grid + n_grid/2 + 1)
  end do

  call mpcg_solver_destroy(s)
  call mpcg_matrix_destroy(a)
  call mpcg_context_destroy(ctx)
  deallocate (rp, col, val, u, unew)

contains

  ! 1-based CSR of I + dt L on the N x N interior grid (diagonal and 4 neighbours)
  subroutine assemble(dt)
    real(c_double), intent(in) :: dt
    real(c_double) :: h2, off, diag
    integer :: row
    h2 = 1.0_c_double/real((n_grid + 1)*(n_grid + 1), c_double)
    off = -dt/h2
    diag = 1.0_c_double + 4.0_c_double*dt/h2
    k = 1
    do i = 0, n_grid - 1
      do j = 0, n_grid - 1
        row = i*n_grid + j + 1
        rp(row) = k
        if (i > 0) call put(row - n_grid, off)
        if (j > 0) call put(row - 1, off)
        call put(row, diag)
        if (j < n_grid - 1) call put(row + 1, off)
        if (i < n_grid - 1) call put(row + n_grid, off)
      end do
    end do
    rp(n + 1) = k
  end subroutine

  ! the next entry (column c, value v) of the row being assembled
  subroutine put(c, v)
    integer, intent(in) :: c
    real(c_double), intent(in) :: v
    col(k) = c
    val(k) = v
    k = k + 1
  end subroutine

  subroutine fail(c, what)
    type(c_ptr), intent(in) :: c
    character(len=*), intent(in) :: what
    write (*, '(a,a,a,a,a,a)') 'example_heat: ', what, ': ', mpcg_f_status_name(st), ': ', &
      mpcg_f_last_error(c)
    stop 2
  end subroutine

end program example_heat
