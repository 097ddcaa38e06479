# Makefile - builds the cgp command-line program, the libcgp library and the tests.
#
#   make            build/cgp, build/libcgp.a, build/libcgp.so (kernels for sm_$(SM) + PTX); cgp runs the kernels
#                   from build/libcgp_tool.so, which the tests link too
#   make run        build, then `cgp bench` and `cgp check` of every precision on the default problem, and the
#                   zoo summary of build/zoo.csv (ZOO_CSV) if it was measured on this GPU (needs a GPU)
#   make test       build everything and run the whole test suite (GPU tests skip without a GPU)
#   make ptxas      registers, shared memory and spills of every kernel (nvcc -Xptxas -v)
#   make sass       SASS of the library kernels into build/sass.txt
#   make install    PREFIX=/usr/local: bin/cgp (+ lib/cgp/libcgp_tool.so), include/cgp.h, libcgp.a, libcgp.so,
#                   lib/pkgconfig/cgp.pc (mk/install.mk)
#   make help       this list and the variables you can set
#
# Variables: SM=90 (GPU architecture), USE_CUDNN=auto|0|1, CUDNN_HOME=dir, CUDA_HOME=dir, ZOO_CSV=file.
# More targets live in mk/*.mk: fuzz, profile, sanitize, install.

SM ?= 90
USE_CUDNN ?= auto
NVCC_PATH := $(shell command -v nvcc 2>/dev/null)
CUDA_HOME ?= $(if $(NVCC_PATH),$(patsubst %/bin/nvcc,%,$(NVCC_PATH)),/usr/local/cuda)
NVCC ?= $(CUDA_HOME)/bin/nvcc
CUDA_LIB := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib) $(CUDA_HOME)/lib64)
CC := gcc
BUILD := build

# ---- cuDNN: looked for under CUDNN_HOME, the CUDA installation and the system directories ----
CUDNN_INC_DIRS := $(if $(CUDNN_HOME),$(CUDNN_HOME)/include) $(CUDA_HOME)/include /usr/include \
                  /usr/include/x86_64-linux-gnu /usr/local/include
CUDNN_LIB_DIRS := $(if $(CUDNN_HOME),$(CUDNN_HOME)/lib64 $(CUDNN_HOME)/lib) $(CUDA_LIB) \
                  /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/lib
CUDNN_INC := $(firstword $(foreach d,$(CUDNN_INC_DIRS),$(if $(wildcard $(d)/cudnn.h),$(d))))
CUDNN_LIB := $(firstword $(foreach d,$(CUDNN_LIB_DIRS),$(if $(wildcard $(d)/libcudnn.so $(d)/libcudnn.so.9),$(d))))
ifeq ($(USE_CUDNN),0)
  HAVE_CUDNN := 0
  CUDNN_STATUS := off (USE_CUDNN=0)
else ifneq ($(and $(CUDNN_INC),$(CUDNN_LIB)),)
  HAVE_CUDNN := 1
  CUDNN_STATUS := found (headers $(CUDNN_INC), library $(CUDNN_LIB))
else ifeq ($(USE_CUDNN),1)
  $(error USE_CUDNN=1 but cuDNN was not found: cudnn.h in [$(CUDNN_INC_DIRS)] -> '$(CUDNN_INC)', libcudnn.so in [$(CUDNN_LIB_DIRS)] -> '$(CUDNN_LIB)'. Set CUDNN_HOME)
else
  HAVE_CUDNN := 0
  CUDNN_STATUS := not found (no cudnn.h + libcudnn.so; set CUDNN_HOME) - cuDNN baselines disabled
endif
ifeq ($(HAVE_CUDNN),1)
  CUDNN_CFLAGS := $(if $(filter-out $(CUDA_HOME)/include,$(CUDNN_INC)),-isystem $(CUDNN_INC))
  # link the exact file found (some systems ship libcudnn.so.9 without the libcudnn.so link); DT_RPATH
  # (not RUNPATH) so the sub-libraries libcudnn dlopens are found beside it too
  CUDNN_SO := $(notdir $(firstword $(wildcard $(CUDNN_LIB)/libcudnn.so $(CUDNN_LIB)/libcudnn.so.9)))
  CUDNN_LDLIBS := -L$(CUDNN_LIB) -Wl,--disable-new-dtags,-rpath,$(CUDNN_LIB) -l:$(CUDNN_SO)
endif

ifeq ($(filter clean help,$(MAKECMDGOALS)),)
  $(info cgp build: kernels for sm_$(SM) (SASS) + compute_$(SM) (PTX for newer GPUs); nvcc $(NVCC); cuDNN $(CUDNN_STATUS))
endif

# the commit the tools report in results: regenerated every build, rewritten only when it changes
# (a source tree without .git, e.g. from git archive, can pass GIT_COMMIT=<hash> on the command line or in the environment)
ifndef GIT_COMMIT
GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
endif
VERSION_C := $(BUILD)/gen/version.c

# ---- layers: the folder a file sits in says what it may include (docs/design.md, "The tree") ----
# library (libcgp): include/ (the API), kernels/fused/ (kernel families, dispatch table, device code),
#                   host/lib/ (the plan API); it never sees the tool's folders
# tool:             host/io/ (.npy, CSV, output files), host/plot/ (SVG charts, roofline model; over io),
#                   reference/ (the CPU fp64 reference), host/bench/ + kernels/bench/ (measurement core,
#                   baselines, probes, GPU reference; over the library, io and reference),
#                   host/cli/ (main, options, subcommands; over everything)
# tests:            tests/lib/ (test helpers) over everything
LIB_INC := -Iinclude -Ikernels/fused -Ihost/lib
IO_INC := -Ihost/io
PLOT_INC := -Ihost/plot $(IO_INC)
REFERENCE_INC := -Ireference
BENCH_INC := $(LIB_INC) -Ihost/bench $(IO_INC) $(REFERENCE_INC)
CLI_INC := $(BENCH_INC) -Ihost/plot -Ihost/cli
TEST_INC := $(CLI_INC) -Itests/lib
LAYER_INC = $(TEST_INC)
$(BUILD)/obj/kernels/fused/%: LAYER_INC = $(LIB_INC)
$(BUILD)/obj/host/lib/%: LAYER_INC = $(LIB_INC)
$(BUILD)/obj/host/io/%: LAYER_INC = $(IO_INC)
$(BUILD)/obj/host/plot/%: LAYER_INC = $(PLOT_INC)
$(BUILD)/obj/reference/%: LAYER_INC = $(REFERENCE_INC)
$(BUILD)/obj/host/bench/%: LAYER_INC = $(BENCH_INC)
$(BUILD)/obj/kernels/bench/%: LAYER_INC = $(BENCH_INC)
$(BUILD)/obj/host/cli/%: LAYER_INC = $(CLI_INC)

CFLAGS_BASE := -std=c11 -O2 -g -fPIC -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -MMD -MP \
               -isystem $(CUDA_HOME)/include -DCGP_HAVE_CUDNN=$(HAVE_CUDNN) $(CUDNN_CFLAGS)
CFLAGS = $(CFLAGS_BASE) $(LAYER_INC)
# -Xfatbin=-compress-all: the fatbinary compresses the SASS too, not only the PTX (the default), about 4 times
# smaller objects and libraries; the SASS is the same bytes (the driver decompresses it when it loads the module)
NVCCFLAGS = -O3 -std=c++17 -lineinfo -Xfatbin=-compress-all -Xcompiler -fPIC,-Wall -MMD -MP $(LAYER_INC)
# CGP_BUILD_SM: the hooks of kernels using compute capability 9.0 instructions outside sm_90a (clusters, TMA) refuse
# to launch them from a build for an older GPU, whose PTX, compiled for a newer one, traps in their place
GENCODE := -gencode arch=compute_$(SM),code=sm_$(SM) -gencode arch=compute_$(SM),code=compute_$(SM) -DCGP_BUILD_SM=$(SM)
# the wgmma files (WGMMA_CU): wgmma exists for sm_90a only (no PTX for later GPUs), so with SM=90 they are
# built for sm_90a alone; with any other SM they build without their kernels, the library's wgmma versions
# refuse every shape (saying why) and the wgmma ceiling probe, kernels/bench/probes_wgmma.cu, refuses too
comma := ,
WGMMA_BUILT := $(if $(filter 90,$(SM)),1,0)
WGMMA_GENCODE := $(if $(filter 1,$(WGMMA_BUILT)),-gencode arch=compute_90a$(comma)code=sm_90a -DCGP_HAVE_WGMMA=1 -DCGP_BUILD_SM=90,$(GENCODE))
HOST_LIBS := -ldl -lrt -lpthread -lstdc++ -lm
LDLIBS := -L$(CUDA_LIB) -lcudart_static $(HOST_LIBS)

# ---- sources ----
LIB_CU := $(sort $(wildcard kernels/fused/*.cu kernels/fused/history/*.cu))
WGMMA_CU := kernels/fused/fused_wgmma.cu kernels/fused/fused_implicit_gemm_wgmma.cu kernels/fused/fused_resident_wgmma.cu \
            kernels/fused/fused_ws_wgmma.cu \
            kernels/fused/history/fused_wgmma.cu \
            kernels/bench/probes_wgmma.cu kernels/bench/probe_overlap.cu
LIB_C := $(sort $(wildcard host/lib/*.c))
TOOL_CU := $(sort $(wildcard kernels/bench/*.cu))
TOOL_C := $(filter-out host/cli/main.c,$(sort $(wildcard host/io/*.c host/plot/*.c host/bench/*.c host/cli/*.c reference/*.c)))
# host sources with no CUDA dependency: the CPU tests link these alone, also under ASan+UBSan
ZOO_BUILTIN_C := $(BUILD)/gen/zoo_builtin.c
CPU_SRCS := $(wildcard host/io/*.c host/plot/*.c reference/*.c host/cli/options.c host/bench/rng.c host/bench/check.c \
                       host/bench/zoo.c host/bench/zoo_summary.c host/bench/bench_report.c \
                       host/bench/problem_size.c host/lib/cost_model.c) $(ZOO_BUILTIN_C)

obj = $(patsubst %,$(BUILD)/obj/%.o,$(1))
LIB_OBJS := $(call obj,$(LIB_CU) $(LIB_C))
TOOL_OBJS := $(call obj,$(TOOL_CU) $(TOOL_C)) $(BUILD)/obj/version.c.o $(BUILD)/obj/zoo_builtin.c.o

CPU_TESTS := $(patsubst tests/cpu/%.c,$(BUILD)/tests/%,$(wildcard tests/cpu/cpu_*.c))
CPU_TESTS_ASAN := $(patsubst tests/cpu/%.c,$(BUILD)/asan/%,$(wildcard tests/cpu/cpu_*.c))
GPU_TESTS := $(patsubst tests/gpu/%.c,$(BUILD)/tests/%,$(wildcard tests/gpu/gpu_*.c))
EXAMPLE := $(BUILD)/tests/example

.PHONY: all run test ptxas sass help clean FORCE
all: $(BUILD)/cgp $(BUILD)/libcgp.a $(BUILD)/libcgp.so

$(BUILD)/obj/%.cu.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) -c $< -o $@

$(call obj,$(WGMMA_CU)): GENCODE = $(WGMMA_GENCODE)

$(BUILD)/obj/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(VERSION_C): FORCE
	@mkdir -p $(dir $@)
	@echo 'const char *const cgp_git_commit = "$(GIT_COMMIT)";' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/obj/version.c.o: $(VERSION_C)
	$(CC) $(CFLAGS) -c $< -o $@

# the public shape zoo, host/bench/zoo.csv, as a C string (host/bench/zoo.h)
$(ZOO_BUILTIN_C): host/bench/zoo.csv
	@mkdir -p $(dir $@)
	@{ echo '/* generated by the Makefile from host/bench/zoo.csv: the built-in zoo (host/bench/zoo.h) */'; \
	   echo 'const char cgp_zoo_builtin_csv[] ='; \
	   sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' $<; echo ';'; } > $@

$(BUILD)/obj/zoo_builtin.c.o: $(ZOO_BUILTIN_C)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libcgp.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libcgp.so: $(LIB_OBJS) mk/libcgp.map
	$(NVCC) -shared -o $@ $(LIB_OBJS) -Xlinker -soname=libcgp.so -Xlinker --version-script=mk/libcgp.map -cudart static

# ---- libcgp_tool.so: the one copy of the kernels the cgp program and the tests run ----
# The library's objects and the tool's (measurement core, baselines, probes, subcommands), every symbol exported.
# The cgp program, the GPU tests, cpu_paths, cpu_tolerance and the sanitizer driver (mk/sanitize.mk) link it, not
# the archives, so the kernels' device code is in this one file, not in each program. It and the programs over it
# share one CUDA runtime, the shared libcudart (the static one hides its symbols, so a shared object cannot hand it
# on, and a second runtime in the program would keep its own error state), found like libcudnn by a DT_RPATH to
# the toolkit's folder. A program finds libcgp_tool.so by an rpath relative to its own folder ($ORIGIN: the tree
# may be copied or installed elsewhere; DT_RPATH, so LD_LIBRARY_PATH cannot swap it).
TOOL_SO := $(BUILD)/libcgp_tool.so
CUDART_SHARED := -L$(CUDA_LIB) -Wl,--disable-new-dtags,-rpath,$(CUDA_LIB) -lcudart
$(TOOL_SO): $(LIB_OBJS) $(TOOL_OBJS)
	$(CC) -shared -o $@ $^ -Wl,-soname,libcgp_tool.so -Wl,-z,defs $(CUDNN_LDLIBS) $(CUDART_SHARED) $(HOST_LIBS)

# what a program over libcgp_tool.so links, and where it looks for it: build/cgp beside itself, or in ../lib/cgp
# once installed (mk/install.mk); the tests (build/tests/, build/asan/) one folder up
TOOL_LINK = $(TOOL_SO) -Wl,--disable-new-dtags,-rpath,'$(TOOL_RPATH)' $(CUDART_SHARED) $(HOST_LIBS)
TOOL_RPATH = $$ORIGIN/..
$(BUILD)/cgp: TOOL_RPATH = $$ORIGIN:$$ORIGIN/../lib/cgp

$(BUILD)/cgp: $(call obj,host/cli/main.c) $(TOOL_SO)
	$(CC) -o $@ $< $(TOOL_LINK)

$(BUILD)/tests/cpu_%: tests/cpu/cpu_%.c $(CPU_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -o $@ $(filter %.c,$^) -lm -lpthread

$(BUILD)/asan/cpu_%: tests/cpu/cpu_%.c $(CPU_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP -O2,$(CFLAGS)) -O1 -fsanitize=address,undefined \
	    -fno-sanitize-recover=all -fno-omit-frame-pointer -o $@ $(filter %.c,$^) -lm -lpthread

# the CPU tests that ask libcgp's host code link libcgp_tool.so (no GPU): cpu_paths evaluates the kernel versions'
# hooks and the selection on a described device, cpu_cost_model and cpu_version_table judge the kernel table and the
# cost model against the recorded selection
CPU_LIB_TESTS := cpu_paths cpu_cost_model cpu_version_table
$(CPU_LIB_TESTS:%=$(BUILD)/tests/%): $(BUILD)/tests/%: tests/cpu/%.c $(TOOL_SO)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -DCGP_WGMMA_BUILT=$(WGMMA_BUILT) -o $@ $< $(TOOL_LINK)

$(CPU_LIB_TESTS:%=$(BUILD)/asan/%): $(BUILD)/asan/%: tests/cpu/%.c $(TOOL_SO)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP -O2,$(CFLAGS)) -O1 -fsanitize=address,undefined \
	    -fno-sanitize-recover=all -fno-omit-frame-pointer -DCGP_WGMMA_BUILT=$(WGMMA_BUILT) -o $@ $< $(TOOL_LINK)

# the expectations of which version runs which shape come from the versions' declared limits
$(BUILD)/tests/cpu_paths $(BUILD)/asan/cpu_paths $(GPU_TESTS): tests/lib/expected_support.h
$(BUILD)/tests/cpu_paths $(BUILD)/asan/cpu_paths: tests/lib/path_shapes.h

# cpu_tolerance checks the version caps (tests/lib/tolerance_caps.h) against libcgp's kernel table: no GPU
$(BUILD)/tests/cpu_tolerance: tests/cpu/cpu_tolerance.c host/bench/check.c $(TOOL_SO)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -o $@ $< host/bench/check.c $(TOOL_LINK)

$(BUILD)/asan/cpu_tolerance: tests/cpu/cpu_tolerance.c host/bench/check.c $(TOOL_SO)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP -O2,$(CFLAGS)) -O1 -fsanitize=address,undefined \
	    -fno-sanitize-recover=all -fno-omit-frame-pointer -o $@ $< host/bench/check.c $(TOOL_LINK)

# the tests that check a y see the bounds and the version caps (generated by scripts/tolerance_caps.py)
$(BUILD)/tests/cpu_tolerance $(BUILD)/asan/cpu_tolerance $(GPU_TESTS): tests/lib/tolerance.h tests/lib/tolerance_caps.h

# the GPU tests know whether the wgmma versions have their kernels and which SM the kernels were built for (which
# shapes they must run)
$(BUILD)/tests/gpu_%: tests/gpu/gpu_%.c $(TOOL_SO)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -DCGP_WGMMA_BUILT=$(WGMMA_BUILT) -DCGP_BUILD_SM=$(SM) -o $@ $< $(TOOL_LINK)

# the example is another program: it sees include/cgp.h alone, and links libcgp.a with the static link line
# docs/library.md gives (the one program of the suite that runs the archive)
$(EXAMPLE): LAYER_INC = -Iinclude
$(EXAMPLE): docs/example.c $(BUILD)/libcgp.a
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -o $@ $< $(BUILD)/libcgp.a $(LDLIBS)

test: all $(CPU_TESTS) $(CPU_TESTS_ASAN) $(GPU_TESTS) $(if $(wildcard docs/example.c),$(EXAMPLE))
	@CGP=$(BUILD)/cgp BUILD=$(BUILD) tests/run_tests.sh

# the results of `cgp bench --zoo --precision all --csv $(ZOO_CSV)` that `make run` summarises
ZOO_CSV ?= $(BUILD)/zoo.csv

run: $(BUILD)/cgp
	$(BUILD)/cgp bench --precision all
	$(BUILD)/cgp check --precision all
	@if [ -f $(ZOO_CSV) ]; then $(BUILD)/cgp bench --zoo-summary $(ZOO_CSV); else \
	  echo "no zoo results in $(ZOO_CSV): '$(BUILD)/cgp bench --zoo --precision all --csv $(ZOO_CSV)' measures every" \
	       "shape of the public zoo (host/bench/zoo.csv) on this GPU, and 'make run' then summarises them"; fi

ptxas:
	@for f in $(LIB_CU) $(TOOL_CU); do echo "== $$f"; \
	  case " $(WGMMA_CU) " in *" $$f "*) g='$(WGMMA_GENCODE)';; *) g='$(GENCODE)';; esac; \
	  $(NVCC) $(filter-out -MMD -MP,$(NVCCFLAGS)) $$g -Xptxas -v -c $$f -o /dev/null 2>&1 | \
	  grep -E "Compiling entry|Used|spill|stack frame" | sed 's/ptxas info    : //'; done

sass: $(LIB_OBJS)
	cuobjdump --dump-sass $(filter %.cu.o,$(LIB_OBJS)) > $(BUILD)/sass.txt
	@echo "wrote $(BUILD)/sass.txt"

help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

clean:
	rm -rf $(BUILD)

-include mk/*.mk
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
