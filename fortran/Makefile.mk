# fortran/Makefile.mk: the Fortran module `mpcg` (iso_c_binding) over libmpcg, its examples and
# the layout check of test/test_fortran.sh; built only where configure found a Fortran compiler
# (the summary's "fortran:" line; --without-fortran turns it off). docs/embedding.md, "Fortran".
EXTRA_DIST += fortran/mpcg.f90 fortran/mpcg_interfaces.inc fortran/example_mm.f90 \
	fortran/example_heat.f90 test/info_layout_c.c test/info_layout_f.f90 test/history_f.f90 \
	test/device_f.f90 test/callback_f.f90 test/check_f.inc
if MPCG_HAVE_FC
# libmpcgf: the module's procedures (mpcg_f_*); programs link it and libmpcg. The compiled module
# fortran/mpcg.mod is written to fortran/ and installed next to mpcg.h: compile with
# -I$(includedir) and link -lmpcgf -lmpcg (the .mod is specific to the compiler and its version).
lib_LTLIBRARIES += fortran/libmpcgf.la
fortran_libmpcgf_la_SOURCES = fortran/mpcg.f90
# libmpcgf does not link libmpcg itself (its mpcg_* references stay undefined, resolved by the
# program's -lmpcg): a libtool library depending on an uninstalled one is relinked at install
# time and then refuses `make install prefix=DIR` (test/test_install.sh) into another libdir
fortran_libmpcgf_la_LDFLAGS = -version-info 0:0:0
AM_FCFLAGS = $(FC_MODOUT)fortran $(FC_MODINC)fortran
# nor that the module includes its interfaces (gfortran finds them beside mpcg.f90)
fortran/mpcg.lo: $(srcdir)/fortran/mpcg_interfaces.inc
# automake does not know that a program's `use mpcg` needs fortran/mpcg.mod
fortran/mpcg.mod: fortran/mpcg.lo
	@test -f $@ || { rm -f fortran/mpcg.lo; $(MAKE) $(AM_MAKEFLAGS) fortran/mpcg.lo; }
MPCG_F_USERS = fortran/example_mm.$(OBJEXT) fortran/example_heat.$(OBJEXT) \
	test/info_layout_f.$(OBJEXT) test/history_f.$(OBJEXT) test/device_f.$(OBJEXT) \
	test/callback_f.$(OBJEXT)
$(MPCG_F_USERS): fortran/mpcg.mod
test/history_f.$(OBJEXT) test/device_f.$(OBJEXT) test/callback_f.$(OBJEXT): \
	$(srcdir)/test/check_f.inc
CLEANFILES += fortran/mpcg.mod

noinst_PROGRAMS += fortran/example_mm fortran/example_heat
fortran_example_mm_SOURCES = fortran/example_mm.f90
fortran_example_mm_LDADD = fortran/libmpcgf.la libmpcg.la
fortran_example_heat_SOURCES = fortran/example_heat.f90
fortran_example_heat_LDADD = fortran/libmpcgf.la libmpcg.la

# test/test_fortran.sh compares the two programs' output: mpcg_info's size and field offsets
# and the enum values, as the C compiler and the Fortran module see them
check_PROGRAMS += test/info_layout_c test/info_layout_f
test_info_layout_c_SOURCES = test/info_layout_c.c
test_info_layout_c_LDADD =
test_info_layout_f_SOURCES = test/info_layout_f.f90
test_info_layout_f_LDADD = fortran/libmpcgf.la libmpcg.la
# and runs this one: atol and the residual history through the module
check_PROGRAMS += test/history_f
test_history_f_SOURCES = test/history_f.f90
test_history_f_LDADD = fortran/libmpcgf.la libmpcg.la
# and this one: the caller's callbacks (preconditioner, iterate, monitor) through the module
check_PROGRAMS += test/callback_f
test_callback_f_SOURCES = test/callback_f.f90
test_callback_f_LDADD = fortran/libmpcgf.la libmpcg.la
# and this one: the device-array interfaces reach the library (refused on a CPU context)
check_PROGRAMS += test/device_f
test_device_f_SOURCES = test/device_f.f90
test_device_f_LDADD = fortran/libmpcgf.la libmpcg.la

MPCG_F_MOD = fortran/mpcg.mod
endif

# mpcg.mod goes next to mpcg.h (no-ops without a Fortran compiler)
install-data-local: install-fortran-mod
uninstall-local: uninstall-fortran-mod
install-fortran-mod: $(MPCG_F_MOD)
	@for m in $(MPCG_F_MOD); do \
	  echo " $(MKDIR_P) '$(DESTDIR)$(includedir)'"; $(MKDIR_P) '$(DESTDIR)$(includedir)' || exit 1; \
	  echo " $(INSTALL_DATA) $$m '$(DESTDIR)$(includedir)'"; \
	  $(INSTALL_DATA) $$m '$(DESTDIR)$(includedir)' || exit 1; \
	done
uninstall-fortran-mod:
	@for m in $(MPCG_F_MOD); do \
	  echo " rm -f '$(DESTDIR)$(includedir)/'`basename $$m`"; \
	  rm -f '$(DESTDIR)$(includedir)/'`basename $$m`; \
	done
.PHONY: install-fortran-mod uninstall-fortran-mod
