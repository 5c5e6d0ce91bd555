! fortran/mpcg.f90: the Fortran module `mpcg`, the C API of include/mpcg.h through iso_c_binding
! SPDX-License-Identifier: BSD-3-Clause
!
! Three layers (docs/embedding.md, "Fortran"):
!   1. bind(C) interfaces to the C functions, named as in C (mpcg_solver_set_tol(S, tol), ...),
!      in fortran/mpcg_interfaces.inc;
!      objects are type(c_ptr), strings NUL-terminated character(kind=c_char) arrays;
!   2. the C enums as integer(c_int) parameters with the same names and values, and
!      type(mpcg_info), a bind(C) mirror of struct mpcg_info, field by field;
!   3. mpcg_f_* wrappers that take Fortran strings, 1-based CSR arrays and assumed-shape
!      real(c_double) arrays, and return strings as allocatable character.
! Every status is an integer(c_int) holding an mpcg_status value (MPCG_SUCCESS = 0).
module mpcg
  use, intrinsic :: iso_c_binding
  implicit none
  private :: c_strlen, c_to_f_string

  ! ------------------------------------------------------------ enums (include/mpcg.h)
  ! mpcg_status
  integer(c_int), parameter :: MPCG_SUCCESS = 0
  integer(c_int), parameter :: MPCG_ERR_INVALID_ARG = 1
  integer(c_int), parameter :: MPCG_ERR_INVALID_STATE = 2
  integer(c_int), parameter :: MPCG_ERR_NOT_SUPPORTED = 3
  integer(c_int), parameter :: MPCG_ERR_HOST_ALLOC = 4
  integer(c_int), parameter :: MPCG_ERR_DEVICE_ALLOC = 5
  integer(c_int), parameter :: MPCG_ERR_NO_DEVICE = 6
  integer(c_int), parameter :: MPCG_ERR_CUDA = 7
  integer(c_int), parameter :: MPCG_ERR_CUSPARSE = 8
  integer(c_int), parameter :: MPCG_ERR_CUBLAS = 9
  integer(c_int), parameter :: MPCG_ERR_IO = 10
  integer(c_int), parameter :: MPCG_ERR_PARSE = 11
  integer(c_int), parameter :: MPCG_ERR_NOT_CONVERGED = 12
  integer(c_int), parameter :: MPCG_ERR_INTERNAL = 13
  integer(c_int), parameter :: MPCG_STATUS_COUNT = 14
  ! mpcg_precision
  integer(c_int), parameter :: MPCG_PRECISION_FP64 = 0
  integer(c_int), parameter :: MPCG_PRECISION_FP32 = 1
  integer(c_int), parameter :: MPCG_PRECISION_MIXED = 2
  ! mpcg_precond
  integer(c_int), parameter :: MPCG_PRECOND_NONE = 0
  integer(c_int), parameter :: MPCG_PRECOND_JACOBI = 1
  integer(c_int), parameter :: MPCG_PRECOND_BJACOBI = 2
  integer(c_int), parameter :: MPCG_PRECOND_CHEBYSHEV = 3
  integer(c_int), parameter :: MPCG_PRECOND_AUTO = 4
  ! mpcg_device_kind
  integer(c_int), parameter :: MPCG_DEVICE_CPU = 0
  integer(c_int), parameter :: MPCG_DEVICE_CUDA = 1
  ! mpcg_reason (positive: converged, negative: diverged)
  integer(c_int), parameter :: MPCG_REASON_NONE = 0
  integer(c_int), parameter :: MPCG_CONVERGED_RTOL = 2
  integer(c_int), parameter :: MPCG_CONVERGED_ZERO_RHS = 3
  integer(c_int), parameter :: MPCG_CONVERGED_ATOL = 4
  integer(c_int), parameter :: MPCG_DIVERGED_MAX_ITER = -3
  integer(c_int), parameter :: MPCG_DIVERGED_BREAKDOWN = -5
  integer(c_int), parameter :: MPCG_DIVERGED_INDEFINITE_MATRIX = -8
  integer(c_int), parameter :: MPCG_DIVERGED_NAN = -9
  integer(c_int), parameter :: MPCG_DIVERGED_STAGNATION = -10
  integer(c_int), parameter :: MPCG_DIVERGED_INDEFINITE_PC = -11
  ! mpcg_log_level
  integer(c_int), parameter :: MPCG_LOG_ERROR = 0
  integer(c_int), parameter :: MPCG_LOG_WARN = 1
  integer(c_int), parameter :: MPCG_LOG_INFO = 2
  integer(c_int), parameter :: MPCG_LOG_DEBUG = 3
  ! mpcg_guess
  integer(c_int), parameter :: MPCG_INDEX_INT32 = 0
  integer(c_int), parameter :: MPCG_INDEX_INT64 = 1

  integer(c_int), parameter :: MPCG_GUESS_ZERO = 0
  integer(c_int), parameter :: MPCG_GUESS_PROVIDED = 1
  ! mpcg_matrix_check flags
  integer(c_int), parameter :: MPCG_CHECK_DIAGONAL = 1
  integer(c_int), parameter :: MPCG_CHECK_SYMMETRY = 2

  ! ------------------------------------------------------------ struct mpcg_info
  ! Field by field as in include/mpcg.h (C enums are int); test/test_fortran.sh compares its
  ! size and offsets with the C compiler's. The char arrays are NUL-terminated: mpcg_f_text()
  ! turns one into a Fortran string.
  type, bind(C) :: mpcg_info
    integer(c_int) :: reason
    integer(c_int) :: converged
    integer(c_int64_t) :: iterations
    real(c_double) :: true_relres
    real(c_double) :: recurrence_relres
    real(c_double) :: setup_time_s
    real(c_double) :: solve_time_s
    character(kind=c_char) :: backend(32)
    integer(c_int) :: precision
    integer(c_int64_t) :: residual_replacements
    real(c_double) :: bytes_per_iteration
    character(kind=c_char) :: variant(32)
    character(kind=c_char) :: variant_reason(256)
    integer(c_int64_t) :: spmvs
    integer(c_int64_t) :: spmvs_fp64
    character(kind=c_char) :: mixed_strategy(16)
    integer(c_int) :: precision_fallback
    integer(c_int64_t) :: fallback_iteration
    character(kind=c_char) :: storage_fallback(160)
    integer(c_int64_t) :: mixed_head_iterations
    character(kind=c_char) :: precond(16)
    character(kind=c_char) :: precond_describe(200)
    real(c_double) :: precond_setup_time_s
    integer(c_int64_t) :: precond_spmvs
    character(kind=c_char) :: spmv_describe(768)
  end type mpcg_info

  ! ------------------------------------------------------------ the C functions
  include 'mpcg_interfaces.inc'

  ! The shapes of the caller's callbacks (include/mpcg.h: mpcg_monitor_fn, mpcg_precond_fn,
  ! mpcg_iterate_fn), for bind(C) module procedures passed with c_funloc. r, z and x are the
  ! addresses of n doubles on the host (c_f_pointer(r, rr, [n])); a precond or iterate callback
  ! returns 0 to go on, anything else ends the solve with MPCG_ERR_INVALID_ARG.
  abstract interface
    subroutine mpcg_monitor_f(iteration, relres, user) bind(C)
      import :: c_int64_t, c_double, c_ptr
      integer(c_int64_t), value :: iteration
      real(c_double), value :: relres
      type(c_ptr), value :: user
    end subroutine
    function mpcg_precond_f(r, z, user) bind(C) result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: r, z, user
      integer(c_int) :: rc
    end function
    function mpcg_iterate_f(iteration, x, user) bind(C) result(rc)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: iteration
      type(c_ptr), value :: x, user
      integer(c_int) :: rc
    end function
  end interface

  ! 1-based CSR from default-integer or 64-bit row pointers
  interface mpcg_f_matrix_from_csr
    module procedure mpcg_f_matrix_from_csr_i32, mpcg_f_matrix_from_csr_i64
  end interface

contains

  ! A NUL-terminated C string (static or library-owned) as a Fortran string; "" for NULL.
  function c_to_f_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  ! A Fortran string as a NUL-terminated C string (trailing blanks removed).
  pure function mpcg_f_cstr(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: c
    c = trim(s)//c_null_char
  end function

  ! A char array of mpcg_info (info%backend, info%precond, ...) as a Fortran string: the
  ! characters before the first NUL.
  pure function mpcg_f_text(chars) result(s)
    character(kind=c_char), intent(in) :: chars(:)
    character(len=:), allocatable :: s
    integer :: i, n
    n = size(chars)
    do i = 1, size(chars)
      if (chars(i) == c_null_char) then
        n = i - 1
        exit
      end if
    end do
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  ! "MPCG_CONVERGED_RTOL" for MPCG_CONVERGED_RTOL, ...
  function mpcg_f_reason_name(reason) result(s)
    integer(c_int), intent(in) :: reason
    character(len=:), allocatable :: s
    s = c_to_f_string(mpcg_reason_name(reason))
  end function

  ! The reason in words ("converged: relative residual below tol", ...)
  function mpcg_f_reason_string(reason) result(s)
    integer(c_int), intent(in) :: reason
    character(len=:), allocatable :: s
    s = c_to_f_string(mpcg_reason_string(reason))
  end function

  ! "MPCG_ERR_PARSE" for MPCG_ERR_PARSE, ...
  function mpcg_f_status_name(status) result(s)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: s
    s = c_to_f_string(mpcg_status_name(status))
  end function

  ! A short description of a status ("malformed Matrix Market file", ...)
  function mpcg_f_status_string(status) result(s)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: s
    s = c_to_f_string(mpcg_status_string(status))
  end function

  ! The recorded error of ctx as a program shows it to its user (no source location); ctx
  ! absent or c_null_ptr: the failure of this thread's last mpcg_f_context_create. "" if none.
  function mpcg_f_last_error(ctx) result(s)
    type(c_ptr), intent(in), optional :: ctx
    character(len=:), allocatable :: s
    character(kind=c_char), allocatable, target :: buf(:)
    type(c_ptr) :: c
    integer(c_size_t) :: n
    c = c_null_ptr
    if (present(ctx)) c = ctx
    n = mpcg_last_error_message(c, c_null_ptr, 0_c_size_t)
    allocate (buf(n + 1))
    n = mpcg_last_error_message(c, c_loc(buf), n + 1)
    s = mpcg_f_text(buf)
  end function

  ! As mpcg_f_last_error, with the "<file>:<line>: <function>: " location and the "called from"
  ! frames of mpcg_last_error (for bug reports).
  function mpcg_f_last_error_full(ctx) result(s)
    type(c_ptr), intent(in), optional :: ctx
    character(len=:), allocatable :: s
    type(c_ptr) :: c
    c = c_null_ptr
    if (present(ctx)) c = ctx
    s = c_to_f_string(mpcg_last_error(c))
  end function

  ! A context on device ("auto", "cpu", "cuda", "cuda:N"; absent: "auto"). c_null_ptr on
  ! failure (status, if present, says why; mpcg_f_last_error() gives the message).
  function mpcg_f_context_create(device, status) result(ctx)
    character(len=*), intent(in), optional :: device
    integer(c_int), intent(out), optional :: status
    type(c_ptr) :: ctx
    integer(c_int) :: st
    if (present(device)) then
      st = mpcg_context_create(mpcg_f_cstr(device), ctx)
    else
      st = mpcg_context_create(mpcg_f_cstr('auto'), ctx)
    end if
    if (st /= MPCG_SUCCESS) ctx = c_null_ptr
    if (present(status)) status = st
  end function

  ! The context's device in words ("cpu (8 OpenMP threads)", "cuda:0 NVIDIA H100", ...)
  function mpcg_f_context_device_name(ctx) result(s)
    type(c_ptr), intent(in) :: ctx
    character(len=:), allocatable :: s
    s = c_to_f_string(mpcg_context_device_name(ctx))
  end function

  ! Read a Matrix Market file (plain or gzip) into A.
  function mpcg_f_matrix_read_mm(ctx, path, a) result(st)
    type(c_ptr), intent(in) :: ctx
    character(len=*), intent(in) :: path
    type(c_ptr), intent(out) :: a
    integer(c_int) :: st
    st = mpcg_matrix_read_mm(ctx, mpcg_f_cstr(path), a)
  end function

  ! Generate a test matrix ("poisson2d:N", "poisson3d:N", "poisson3d27:N").
  function mpcg_f_matrix_generate(ctx, spec, a) result(st)
    type(c_ptr), intent(in) :: ctx
    character(len=*), intent(in) :: spec
    type(c_ptr), intent(out) :: a
    integer(c_int) :: st
    st = mpcg_matrix_generate(ctx, mpcg_f_cstr(spec), a)
  end function

  ! A from 1-based CSR arrays: row_ptr(1) = 1, row i holds col_idx(row_ptr(i) : row_ptr(i+1)-1)
  ! (columns 1..n) and the same entries of val. The arrays are copied (0-based) for the C call.
  ! MPCG_ERR_INVALID_ARG if an array is shorter than n and row_ptr say (the library checks the
  ! rest and records its message in ctx).
  function mpcg_f_matrix_from_csr_i32(ctx, n, row_ptr, col_idx, val, a) result(st)
    type(c_ptr), intent(in) :: ctx
    integer, intent(in) :: n
    integer, intent(in) :: row_ptr(:), col_idx(:)
    real(c_double), intent(in) :: val(:)
    type(c_ptr), intent(out) :: a
    integer(c_int) :: st
    integer(c_int64_t), allocatable :: rp(:)
    allocate (rp(size(row_ptr)))
    rp = int(row_ptr, c_int64_t)
    st = mpcg_f_matrix_from_csr_i64(ctx, n, rp, col_idx, val, a)
  end function

  function mpcg_f_matrix_from_csr_i64(ctx, n, row_ptr, col_idx, val, a) result(st)
    type(c_ptr), intent(in) :: ctx
    integer, intent(in) :: n
    integer(c_int64_t), intent(in) :: row_ptr(:)
    integer, intent(in) :: col_idx(:)
    real(c_double), intent(in) :: val(:)
    type(c_ptr), intent(out) :: a
    integer(c_int) :: st
    integer(c_int64_t), allocatable :: rp(:)
    integer(c_int32_t), allocatable :: ci(:)
    integer(c_int64_t) :: nnz
    a = c_null_ptr
    st = MPCG_ERR_INVALID_ARG
    if (n < 1 .or. size(row_ptr) < n + 1) return
    nnz = row_ptr(n + 1) - 1
    if (nnz < 0 .or. size(col_idx, kind=c_int64_t) < nnz .or. size(val, kind=c_int64_t) < nnz) &
      return
    allocate (rp(n + 1), ci(nnz))
    rp = row_ptr(1:n + 1) - 1
    ci = int(col_idx(1:nnz) - 1, c_int32_t)
    st = mpcg_matrix_create_csr(ctx, int(n, c_int64_t), rp, ci, val, a)
  end function

  ! Replace A's values (same pattern, the order of the CSR arrays A was created from).
  function mpcg_f_matrix_update_values(a, val) result(st)
    type(c_ptr), intent(in) :: a
    real(c_double), intent(in) :: val(:)
    integer(c_int) :: st
    st = MPCG_ERR_INVALID_ARG
    if (size(val, kind=c_int64_t) < mpcg_matrix_nnz(a)) return
    st = mpcg_matrix_update_values(a, val)
  end function

  ! A solver for A with optional preconditioner (MPCG_PRECOND_*; absent: the library's default,
  ! MPCG_PRECOND_AUTO, as every interface's: docs/options.md), tol, atol (converged when
  ! ||b - A x|| <= max(tol ||b||, atol)), maxit, and history (.true.: record the residual
  ! history of every solve, mpcg_f_solver_get_history).
  function mpcg_f_solver_create(ctx, a, s, precond, tol, maxit, atol, history) result(st)
    type(c_ptr), intent(in) :: ctx, a
    type(c_ptr), intent(out) :: s
    integer(c_int), intent(in), optional :: precond
    real(c_double), intent(in), optional :: tol
    integer, intent(in), optional :: maxit
    real(c_double), intent(in), optional :: atol
    logical, intent(in), optional :: history
    integer(c_int) :: st
    st = mpcg_solver_create(ctx, a, s)
    if (st /= MPCG_SUCCESS) return
    if (present(precond)) st = mpcg_solver_set_precond(s, precond)
    if (st == MPCG_SUCCESS .and. present(tol)) st = mpcg_solver_set_tol(s, tol)
    if (st == MPCG_SUCCESS .and. present(atol)) st = mpcg_solver_set_atol(s, atol)
    if (st == MPCG_SUCCESS .and. present(history)) then
      if (history) st = mpcg_solver_set_history(s, 1_c_int)
    end if
    if (st == MPCG_SUCCESS .and. present(maxit)) &
      st = mpcg_solver_set_maxit(s, int(maxit, c_int64_t))
    if (st /= MPCG_SUCCESS) then
      call mpcg_solver_destroy(s)
      s = c_null_ptr
    end if
  end function

  ! Set an option by key and value ("cg.variant", "host"), as cgsolve's --option.
  function mpcg_f_solver_set_option(s, key, value) result(st)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: key, value
    integer(c_int) :: st
    st = mpcg_solver_set_option(s, mpcg_f_cstr(key), mpcg_f_cstr(value))
  end function

  ! The preconditioner by name, as cgsolve's --precond takes it ("jacobi", "bjacobi:24",
  ! "chebyshev:4", ...): the library's table of names (mpcg_solver_set_precond_spec).
  function mpcg_f_solver_set_precond_spec(s, spec) result(st)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: spec
    integer(c_int) :: st
    st = mpcg_solver_set_precond_spec(s, mpcg_f_cstr(spec))
  end function

  ! The SpMV backend by name ("auto", "cpu", "cusparse", ...).
  function mpcg_f_solver_set_spmv(s, name) result(st)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: name
    integer(c_int) :: st
    st = mpcg_solver_set_spmv(s, mpcg_f_cstr(name))
  end function

  ! Solve A x = b. x on entry is the guess if MPCG_GUESS_PROVIDED was set. info (optional) says
  ! what happened: info%converged, info%iterations, info%reason, info%true_relres, ...
  ! b and x must hold n = mpcg_matrix_n(A) entries (the C call reads and writes n of them);
  ! MPCG_ERR_INVALID_ARG if their sizes differ (the wrapper's check, not recorded in the
  ! context).
  function mpcg_f_solve(s, b, x, info) result(st)
    type(c_ptr), intent(in) :: s
    real(c_double), intent(in), contiguous :: b(:)
    real(c_double), intent(inout), contiguous :: x(:)
    type(mpcg_info), intent(out), optional :: info
    integer(c_int) :: st
    type(mpcg_info) :: inf
    st = MPCG_ERR_INVALID_ARG
    if (size(b) /= size(x)) return
    st = mpcg_solve(s, b, x, inf)
    if (present(info)) info = inf
  end function

  ! The residual history of the last solve (docs/history.md), copied into 1-based arrays of its
  ! n entries: iteration(i) (0 for the initial residual), relres(i) = ||r_k|| / ||b|| of the
  ! recurrence, true_relres(i) = ||b - A x_k|| / ||b|| where the solve computed it (else NaN:
  ! test with ieee_is_nan) and time_s(i), seconds since the solve began. n = 0 when the history
  ! is off or nothing was recorded (a block solve, b = 0).
  function mpcg_f_solver_get_history(s, iteration, relres, true_relres, time_s) result(st)
    type(c_ptr), intent(in) :: s
    integer(c_int64_t), allocatable, intent(out) :: iteration(:)
    real(c_double), allocatable, intent(out) :: relres(:), true_relres(:), time_s(:)
    integer(c_int) :: st
    integer(c_int64_t) :: n
    type(c_ptr) :: pi, pr, pt, ps
    integer(c_int64_t), pointer :: fi(:)
    real(c_double), pointer :: fr(:)
    st = mpcg_solver_get_history(s, n, pi, pr, pt, ps)
    if (st /= MPCG_SUCCESS) n = 0
    allocate (iteration(n), relres(n), true_relres(n), time_s(n))
    if (n == 0) return
    call c_f_pointer(pi, fi, [n])
    iteration = fi
    call c_f_pointer(pr, fr, [n])
    relres = fr
    call c_f_pointer(pt, fr, [n])
    true_relres = fr
    call c_f_pointer(ps, fr, [n])
    time_s = fr
  end function

end module mpcg
