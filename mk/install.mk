# mk/install.mk - `make install`: the tool and the library for other programs (see docs/library.md).
#
#   make install PREFIX=/opt/cgp [DESTDIR=staging-dir] [BUILD=build]
#
# Builds and copies the cgp program to $(PREFIX)/bin and the library it runs, libcgp_tool.so (the Makefile), to
# $(PREFIX)/lib/cgp, where the program looks for it ($ORIGIN/../lib/cgp); include/cgp.h to $(PREFIX)/include,
# libcgp.a and libcgp.so to $(PREFIX)/lib, and writes $(PREFIX)/lib/pkgconfig/cgp.pc (`pkg-config --cflags --libs
# cgp` for the shared library, `--static` for the static one; cgp.h includes cuda_runtime_api.h, so its Cflags name
# the CUDA headers).

PREFIX ?= /usr/local
CGP_PC_VERSION = $(shell sed -n 's/^\#define CGP_VERSION_MAJOR \([0-9]*\)/\1/p' include/cgp.h).$(shell \
                   sed -n 's/^\#define CGP_VERSION_MINOR \([0-9]*\)/\1/p' include/cgp.h)

.PHONY: install
install: $(BUILD)/cgp $(TOOL_SO) $(BUILD)/libcgp.a $(BUILD)/libcgp.so
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/lib/cgp
	install -m 755 $(BUILD)/cgp $(DESTDIR)$(PREFIX)/bin/cgp
	install -m 755 $(TOOL_SO) $(DESTDIR)$(PREFIX)/lib/cgp/libcgp_tool.so
	install -m 644 include/cgp.h $(DESTDIR)$(PREFIX)/include/cgp.h
	install -m 644 $(BUILD)/libcgp.a $(DESTDIR)$(PREFIX)/lib/libcgp.a
	install -m 755 $(BUILD)/libcgp.so $(DESTDIR)$(PREFIX)/lib/libcgp.so
	printf '%s\n' 'prefix=$(PREFIX)' 'includedir=$${prefix}/include' 'libdir=$${prefix}/lib' '' \
	    'Name: cgp' 'Description: conv3x3 + GELU + global mean in one CUDA launch' 'Version: $(CGP_PC_VERSION)' \
	    'Cflags: -I$${includedir} -I$(CUDA_HOME)/include' 'Libs: -L$${libdir} -lcgp -Wl,-rpath,$${libdir}' \
	    'Libs.private: -L$(CUDA_LIB) -lcudart_static -ldl -lrt -lpthread -lstdc++ -lm' \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/cgp.pc
