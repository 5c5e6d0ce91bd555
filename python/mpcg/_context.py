# python/mpcg/_context.py: libmpcg contexts for Solver and cg(): creation with the auto trial's
# decision cache, and the contexts cg() keeps between calls
# SPDX-License-Identifier: BSD-3-Clause
"""Contexts (mpcg_context) of the package.

A context owns the device, its library handles and its stream. Creating one costs a few
milliseconds on a GPU; cg() therefore keeps one per device string and thread, created at its
first call and reused by the later ones (they live until the process ends). A Solver owns its
own.

Every context gets the directory of ``--spmv=auto``'s decision cache (docs/backends/auto.md,
"The cache"), the one cgsolve uses: ``$XDG_CACHE_HOME/mpcg``, else ``~/.cache/mpcg``; so a matrix
pattern timed once (by cgsolve or Python) is not timed again. ``cache_dir=""`` turns it off.
"""
import ctypes
import os
import threading

from . import _api

_local = threading.local()


def default_cache_dir():
    """cgsolve's cache directory: $XDG_CACHE_HOME/mpcg, else $HOME/.cache/mpcg ("" without
    either: no cache)."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "mpcg")
    home = os.environ.get("HOME")
    return os.path.join(home, ".cache", "mpcg") if home else ""


def create(device, cache_dir, fail):
    """A new context on `device` with the decision cache in cache_dir (None: the default, "":
    none); fail(status, ctx, what) raises on an error (nothing is left behind)."""
    ctx = ctypes.c_void_p()
    _api.clear_error(None)
    st = _api.context_create(device.encode(), ctypes.byref(ctx))
    if st != _api.MPCG_SUCCESS:
        fail(st, None, f"mpcg_context_create({device!r})")
    handle = ctx.value
    d = default_cache_dir() if cache_dir is None else str(cache_dir)
    if d and _api.context_set_cache_dir is not None:
        st = _api.context_set_cache_dir(handle, os.fsencode(d))
        if st != _api.MPCG_SUCCESS:
            try:
                fail(st, handle, "mpcg_context_set_cache_dir")
            finally:
                _api.context_destroy(handle)
    return handle


def shared(device, fail):
    """cg()'s context on `device` for this thread (created at the first call, with the default
    cache directory)."""
    contexts = getattr(_local, "contexts", None)
    if contexts is None:
        contexts = _local.contexts = {}
    handle = contexts.get(device)
    if handle is None:
        handle = contexts[device] = create(device, None, fail)
    return handle


def discard(handle):
    """Stop reusing a kept context that cannot be put back in order (it is not destroyed: that
    could wait on a stream that is gone)."""
    contexts = getattr(_local, "contexts", {})
    for device, h in list(contexts.items()):
        if h == handle:
            del contexts[device]
