# python/Makefile.mk: the Python package (ctypes over libmpcg; docs/embedding.md), installed by
# `make install` into $(pkgpythondir) (AM_PATH_PYTHON: $prefix/lib/python3.X/site-packages/mpcg)
# with a generated _config.py that names the libdir of the same install; tested by
# test/test_python.sh, its install by test/test_install.sh
MPCG_PY_FILES = python/mpcg/__init__.py python/mpcg/_lib.py python/mpcg/_api.py \
	python/mpcg/solver.py python/mpcg/_device.py python/mpcg/_context.py python/mpcg/_info.py \
	python/mpcg/_callbacks.py python/mpcg/_block.py
EXTRA_DIST += python/pyproject.toml python/README.md python/examples/heat.py \
	python/tests/test_cg.py python/tests/test_device.py python/tests/test_scipy_cg.py
if MPCG_HAVE_PYTHON
pkgpython_PYTHON = $(MPCG_PY_FILES)
nodist_pkgpython_PYTHON = python/mpcg/_config.py
all-local: python/mpcg/_config.py
else
EXTRA_DIST += $(MPCG_PY_FILES)
endif
# made by make, as mpcg.pc (above), so that `make install prefix=DIR` records DIR's libdir; remade
# on every make and replaced only when its text changes
CLEANFILES += python/mpcg/_config.py python/mpcg/_config.py-t
python/mpcg/_config.py: FORCE
	$(AM_V_GEN)$(MKDIR_P) python/mpcg && \
	{ echo '# python/mpcg/_config.py: written by make (python/Makefile.mk): the install of libmpcg'; \
	  echo '# this package was installed with (mpcg/_lib.py: after MPCG_LIBRARY, MPCG_PREFIX)'; \
	  echo 'LIBDIR = "$(libdir)"'; } >$@-t && \
	if cmp -s $@-t $@; then rm -f $@-t; else mv -f $@-t $@; fi
