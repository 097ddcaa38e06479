# mk/install.mk - `make install`: the library for other programs (see docs/library.md).
#
#   make install PREFIX=/opt/cgp [DESTDIR=staging-dir] [BUILD=build]
#
# Builds and copies include/cgp.h to $(PREFIX)/include and libcgp.a, libcgp.so to $(PREFIX)/lib.

PREFIX ?= /usr/local

.PHONY: install
install: $(BUILD)/libcgp.a $(BUILD)/libcgp.so
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib
	install -m 644 include/cgp.h $(DESTDIR)$(PREFIX)/include/cgp.h
	install -m 644 $(BUILD)/libcgp.a $(DESTDIR)$(PREFIX)/lib/libcgp.a
	install -m 755 $(BUILD)/libcgp.so $(DESTDIR)$(PREFIX)/lib/libcgp.so
