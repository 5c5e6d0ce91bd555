# python/mpcg/_lib.py: find and load libmpcg (the shared library of the C API)
# SPDX-License-Identifier: BSD-3-Clause
"""Locate libmpcg and load it with ctypes.

Search order (the first that loads wins):

1. the environment variable ``MPCG_LIBRARY``: a path to the library file (or a directory
   holding it). When it is set, nothing else is tried: a wrong value is an error, not a
   silent fallback to another copy of the library.
2. ``ctypes.util.find_library("mpcg")`` (the dynamic linker's cache, ``LD_LIBRARY_PATH`` on
   some platforms).
3. the ``lib`` and ``lib64`` directories of common prefixes: ``$MPCG_PREFIX``, ``$CONDA_PREFIX``,
   ``sys.prefix``, ``~/.local``, ``/usr/local``, ``/opt/mpcg``, ``/usr``, and the Debian
   multiarch directory ``/usr/lib/<triplet>``.
"""
import ctypes
import ctypes.util
import os
import sys

_NAMES = {
    "darwin": ("libmpcg.dylib", "libmpcg.0.dylib"),
    "win32": ("mpcg.dll", "libmpcg.dll", "libmpcg-0.dll"),
}.get(sys.platform, ("libmpcg.so", "libmpcg.so.0"))


def _prefixes():
    seen = []
    for p in (os.environ.get("MPCG_PREFIX"), os.environ.get("CONDA_PREFIX"), sys.prefix,
              os.path.expanduser("~/.local"), "/usr/local", "/opt/mpcg", "/usr"):
        if p and p not in seen:
            seen.append(p)
    return seen


def _candidate_dirs():
    dirs = []
    for p in _prefixes():
        dirs += [os.path.join(p, "lib"), os.path.join(p, "lib64")]
    multiarch = getattr(sys.implementation, "_multiarch", None)
    if multiarch:
        dirs.append(os.path.join("/usr/lib", multiarch))
    return dirs


def _try(path, tried):
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        tried.append(f"{path} ({e})")
        return None
    if not hasattr(lib, "mpcg_solve"):
        tried.append(f"{path} (loaded, but it has no mpcg_solve: not libmpcg)")
        return None
    return lib


def load():
    """Return (the loaded ctypes.CDLL, its path); ImportError naming every place tried."""
    tried = []
    env = os.environ.get("MPCG_LIBRARY")
    if env:
        paths = [os.path.join(env, n) for n in _NAMES] if os.path.isdir(env) else [env]
        for p in paths:
            lib = _try(p, tried)
            if lib is not None:
                return lib, p
        raise ImportError("mpcg: cannot load libmpcg from MPCG_LIBRARY=" + env + "; tried:\n  "
                          + "\n  ".join(tried))
    found = ctypes.util.find_library("mpcg")
    if found:
        lib = _try(found, tried)
        if lib is not None:
            return lib, found
    else:
        tried.append('ctypes.util.find_library("mpcg") (found nothing)')
    for d in _candidate_dirs():
        for n in _NAMES:
            p = os.path.join(d, n)
            if os.path.exists(p):
                lib = _try(p, tried)
                if lib is not None:
                    return lib, p
    tried.append(", ".join(_candidate_dirs()) + " (no " + " or ".join(_NAMES) + " there)")
    raise ImportError(
        "mpcg: cannot find the shared library libmpcg. Install mpcg (./configure && make && "
        "make install), or set MPCG_LIBRARY to the path of libmpcg.so (a build tree has it in "
        ".libs/libmpcg.so), or MPCG_PREFIX to its install prefix. Tried:\n  " + "\n  ".join(tried))
