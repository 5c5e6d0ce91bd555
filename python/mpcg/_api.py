# python/mpcg/_api.py: ctypes prototypes of the libmpcg functions this package calls
# SPDX-License-Identifier: BSD-3-Clause
"""The C API of include/mpcg.h as ctypes declarations.

Every function used by the package gets its argtypes and restype here; array arguments are
declared ``c_void_p`` so that an address (``ndarray.ctypes.data``, ``cupy.ndarray.data.ptr``)
passes without building a ctypes pointer object on every call.
"""
import ctypes
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int, c_int64, c_size_t,
                    c_void_p)

from ._lib import load

lib, library_path = load()

# enums of mpcg.h (C enums are int-sized)
c_enum = c_int

MPCG_SUCCESS = 0
STATUS_NAMES = ("MPCG_SUCCESS", "MPCG_ERR_INVALID_ARG", "MPCG_ERR_INVALID_STATE",
                "MPCG_ERR_NOT_SUPPORTED", "MPCG_ERR_HOST_ALLOC", "MPCG_ERR_DEVICE_ALLOC",
                "MPCG_ERR_NO_DEVICE", "MPCG_ERR_CUDA", "MPCG_ERR_CUSPARSE", "MPCG_ERR_CUBLAS",
                "MPCG_ERR_IO", "MPCG_ERR_PARSE", "MPCG_ERR_NOT_CONVERGED", "MPCG_ERR_INTERNAL")

PRECISION = {"fp64": 0, "fp32": 1, "mixed": 2}
DEVICE_CPU, DEVICE_CUDA = 0, 1
GUESS_ZERO, GUESS_PROVIDED = 0, 1
INDEX_INT32, INDEX_INT64 = 0, 1  # mpcg_index_type


class Info(Structure):
    """struct mpcg_info, field for field in the order of include/mpcg.h (fields are only ever
    appended there, so a newer library with a longer struct writes past these fields only if
    the struct grows: the buffer below is padded to allow for that)."""
    _fields_ = [
        ("reason", c_enum),
        ("converged", c_int),
        ("iterations", c_int64),
        ("true_relres", c_double),
        ("recurrence_relres", c_double),
        ("setup_time_s", c_double),
        ("solve_time_s", c_double),
        ("backend", c_char * 32),
        ("precision", c_enum),
        ("residual_replacements", c_int64),
        ("bytes_per_iteration", c_double),
        ("variant", c_char * 32),
        ("variant_reason", c_char * 256),
        ("spmvs", c_int64),
        ("spmvs_fp64", c_int64),
        ("mixed_strategy", c_char * 16),
        ("precision_fallback", c_int),
        ("fallback_iteration", c_int64),
        ("storage_fallback", c_char * 160),
        ("mixed_head_iterations", c_int64),
        ("precond", c_char * 16),
        ("precond_describe", c_char * 200),
        ("precond_setup_time_s", c_double),
        ("precond_spmvs", c_int64),
        ("spmv_describe", c_char * 768),
    ]


class InfoBuffer(Structure):
    """An Info followed by spare bytes: a library built from a later mpcg.h (whose mpcg_info
    has more fields at the end) must not write past the Python object."""
    _fields_ = [("info", Info), ("_spare", c_char * 4096)]


def _proto(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


def _proto_optional(name, restype, *argtypes):
    """A function of a newer libmpcg: None where the loaded library predates it."""
    return _proto(name, restype, *argtypes) if hasattr(lib, name) else None


ctx_p = c_void_p
mat_p = c_void_p
solver_p = c_void_p

version = _proto("mpcg_version", None, POINTER(c_int * 3))
status_name = _proto("mpcg_status_name", c_char_p, c_enum)
status_string = _proto("mpcg_status_string", c_char_p, c_enum)
precision_name = _proto("mpcg_precision_name", c_char_p, c_enum)
precond_name = _proto("mpcg_precond_name", c_char_p, c_enum)
reason_name = _proto("mpcg_reason_name", c_char_p, c_enum)
reason_string = _proto("mpcg_reason_string", c_char_p, c_enum)

context_create = _proto("mpcg_context_create", c_enum, c_char_p, POINTER(ctx_p))
context_destroy = _proto("mpcg_context_destroy", None, ctx_p)
context_device_kind = _proto("mpcg_context_device_kind", c_enum, ctx_p)
context_device_name = _proto("mpcg_context_device_name", c_char_p, ctx_p)
context_set_stream = _proto("mpcg_context_set_stream", c_enum, ctx_p, c_void_p)
# the auto trial's decision cache: None where the loaded libmpcg predates it
context_set_cache_dir = _proto_optional("mpcg_context_set_cache_dir", c_enum, ctx_p, c_char_p)
last_error = _proto("mpcg_last_error", c_char_p, ctx_p)
# the library's table of preconditioner names ("jacobi", "bjacobi:24", ...)
precond_parse = _proto("mpcg_precond_parse", c_enum, c_char_p, c_void_p, c_void_p)
last_error_message = _proto("mpcg_last_error_message", c_size_t, ctx_p, c_void_p, c_size_t)
clear_error = _proto("mpcg_clear_error", None, ctx_p)

matrix_create_csr = _proto("mpcg_matrix_create_csr", c_enum, ctx_p, c_int64, c_void_p, c_void_p,
                           c_void_p, POINTER(mat_p))
matrix_destroy = _proto("mpcg_matrix_destroy", None, mat_p)
matrix_n = _proto("mpcg_matrix_n", c_int64, mat_p)
matrix_nnz = _proto("mpcg_matrix_nnz", c_int64, mat_p)
matrix_update_values = _proto("mpcg_matrix_update_values", c_enum, mat_p, c_void_p)
# device CSR views (CuPy input): None where the loaded libmpcg predates them
matrix_view_device_csr = _proto_optional("mpcg_matrix_view_device_csr", c_enum, ctx_p, c_int64,
                                         c_int64, c_void_p, c_enum, c_void_p, c_void_p,
                                         POINTER(mat_p))
matrix_update_values_device = _proto_optional("mpcg_matrix_update_values_device", c_enum, mat_p,
                                              c_void_p)

solver_create = _proto("mpcg_solver_create", c_enum, ctx_p, mat_p, POINTER(solver_p))
solver_destroy = _proto("mpcg_solver_destroy", None, solver_p)
solver_set_spmv = _proto("mpcg_solver_set_spmv", c_enum, solver_p, c_char_p)
solver_set_precision = _proto("mpcg_solver_set_precision", c_enum, solver_p, c_enum)
solver_set_precond = _proto("mpcg_solver_set_precond", c_enum, solver_p, c_enum)
solver_set_precond_spec = _proto("mpcg_solver_set_precond_spec", c_enum, solver_p, c_char_p)
solver_set_tol = _proto("mpcg_solver_set_tol", c_enum, solver_p, c_double)
solver_set_atol = _proto("mpcg_solver_set_atol", c_enum, solver_p, c_double)
solver_set_history = _proto("mpcg_solver_set_history", c_enum, solver_p, c_int)
solver_get_history = _proto("mpcg_solver_get_history", c_enum, solver_p, POINTER(c_int64),
                            POINTER(POINTER(c_int64)), POINTER(POINTER(c_double)),
                            POINTER(POINTER(c_double)), POINTER(POINTER(c_double)))
solver_set_maxit = _proto("mpcg_solver_set_maxit", c_enum, solver_p, c_int64)
solver_set_initial_guess = _proto("mpcg_solver_set_initial_guess", c_enum, solver_p, c_enum)
solver_set_option = _proto("mpcg_solver_set_option", c_enum, solver_p, c_char_p, c_char_p)
solver_setup = _proto("mpcg_solver_setup", c_enum, solver_p)
solve = _proto("mpcg_solve", c_enum, solver_p, c_void_p, c_void_p, c_void_p)
solve_device = _proto("mpcg_solve_device", c_enum, solver_p, c_void_p, c_void_p, c_void_p)
device_count = _proto("mpcg_device_count", c_int)
matrix_check = _proto("mpcg_matrix_check", c_enum, mat_p, ctypes.c_uint)
MPCG_CHECK_SYMMETRY = 2
solve_block = _proto("mpcg_solve_block", c_enum, solver_p, c_int, c_void_p, c_void_p, c_void_p)
solve_block_device = _proto("mpcg_solve_block_device", c_enum, solver_p, c_int, c_void_p,
                            c_void_p, c_void_p)
BLOCK_MAX = 64  # nrhs of one mpcg_solve_block
# the caller's M and callback(xk) (SciPy's): None where the loaded libmpcg predates them
PRECOND_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p)
ITERATE_FN = ctypes.CFUNCTYPE(c_int, c_int64, c_void_p, c_void_p)
solver_set_precond_callback = _proto_optional("mpcg_solver_set_precond_callback", c_enum,
                                              solver_p, PRECOND_FN, c_void_p)
solver_set_iterate_callback = _proto_optional("mpcg_solver_set_iterate_callback", c_enum,
                                              solver_p, ITERATE_FN, c_void_p)


def library_version():
    v = (c_int * 3)()
    version(ctypes.byref(v))
    return tuple(v)
