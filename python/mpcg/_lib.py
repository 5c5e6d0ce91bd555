# python/mpcg/_lib.py: find and load libmpcg (the shared library of the C API)
# SPDX-License-Identifier: BSD-3-Clause
"""Locate libmpcg and load it with ctypes.

Search order (the first that loads wins):

1. the environment variable ``MPCG_LIBRARY``: a path to the library file (or a directory
   holding it). When it is set, nothing else is tried: a wrong value is an error, not a
   silent fallback to another copy of the library.
2. ``$MPCG_PREFIX/lib`` and ``lib64``, where that variable is set (an explicit choice).
3. the libdir of the install this package came with: ``make install`` writes it into
   ``mpcg/_config.py`` (python/Makefile.mk); a source tree or ``pip install ./python`` has none.
4. ``pkg-config --variable=libdir mpcg``: an installed mpcg.pc (``PKG_CONFIG_PATH`` as usual).
5. ``ctypes.util.find_library("mpcg")`` (the dynamic linker's cache, ``LD_LIBRARY_PATH`` on
   some platforms).
6. the ``lib`` and ``lib64`` directories of common prefixes: ``$CONDA_PREFIX``, ``sys.prefix``,
   ``~/.local``, ``/usr/local``, ``/opt/mpcg``, ``/usr``, and the Debian multiarch directory
   ``/usr/lib/<triplet>``.
"""
import ctypes
import ctypes.util
import os
import shutil
import subprocess
import sys

try:
    from . import _config  # written by make install (python/Makefile.mk)
except ImportError:
    _config = None

_NAMES = {
    "darwin": ("libmpcg.dylib", "libmpcg.0.dylib"),
    "win32": ("mpcg.dll", "libmpcg.dll", "libmpcg-0.dll"),
}.get(sys.platform, ("libmpcg.so", "libmpcg.so.0"))


def _prefixes():
    seen = []
    for p in (os.environ.get("CONDA_PREFIX"), sys.prefix, os.path.expanduser("~/.local"),
              "/usr/local", "/opt/mpcg", "/usr"):
        if p and p not in seen:
            seen.append(p)
    return seen


def _pkg_config_libdir(tried):
    """The libdir of an installed mpcg.pc, or None (no pkg-config, no mpcg.pc)."""
    exe = shutil.which("pkg-config")
    if exe is None:
        tried.append("pkg-config (not installed)")
        return None
    try:
        out = subprocess.run([exe, "--variable=libdir", "mpcg"], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError) as e:
        tried.append(f"pkg-config --variable=libdir mpcg ({e})")
        return None
    libdir = out.stdout.strip()
    if out.returncode != 0 or not libdir:
        tried.append("pkg-config --variable=libdir mpcg (no mpcg.pc on its path)")
        return None
    return libdir


def _in_dirs(dirs, tried):
    """The first libmpcg of dirs that loads, as (lib, path), or None."""
    for d in dirs:
        for n in _NAMES:
            p = os.path.join(d, n)
            if os.path.exists(p):
                lib = _try(p, tried)
                if lib is not None:
                    return lib, p
    tried.append(", ".join(dirs) + " (no " + " or ".join(_NAMES) + " there)")
    return None


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
    prefix = os.environ.get("MPCG_PREFIX")
    if prefix:
        hit = _in_dirs([os.path.join(prefix, "lib"), os.path.join(prefix, "lib64")], tried)
        if hit:
            return hit
    libdir = getattr(_config, "LIBDIR", None)
    if libdir:
        hit = _in_dirs([libdir], tried)
        if hit:
            return hit
    libdir = _pkg_config_libdir(tried)
    if libdir:
        hit = _in_dirs([libdir], tried)
        if hit:
            return hit
    found = ctypes.util.find_library("mpcg")
    if found:
        lib = _try(found, tried)
        if lib is not None:
            return lib, found
    else:
        tried.append('ctypes.util.find_library("mpcg") (found nothing)')
    hit = _in_dirs(_candidate_dirs(), tried)
    if hit:
        return hit
    raise ImportError(
        "mpcg: cannot find the shared library libmpcg. Install mpcg (./configure && make && "
        "make install), put its mpcg.pc on PKG_CONFIG_PATH, or set MPCG_LIBRARY to the path of "
        "libmpcg.so (a build tree has it in .libs/libmpcg.so), or MPCG_PREFIX to its install "
        "prefix. Tried:\n  " + "\n  ".join(tried))
