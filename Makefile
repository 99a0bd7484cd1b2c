# profev - trace recorder toolchain. `make help` lists the targets.

VERSION     := 0.1.0
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      := $(PREFIX)/bin
LIBDIR      := $(PREFIX)/lib
INCDIR      := $(PREFIX)/include
MANDIR      := $(PREFIX)/share/man
PKGDIR      := $(LIBDIR)/pkgconfig

CC          ?= cc
SAN         ?=
SOAK_SECONDS ?= 600
RING ?=
# Cross-building: ARCH=aarch64 (or CROSS=aarch64-linux-gnu-) builds with
# Debian's cross toolchain against the arm64 multiarch libraries
# (make deps ARCH=aarch64 installs them) into build-aarch64/, and
# make ARCH=aarch64 test runs the tests under qemu-aarch64. A native build,
# on any machine, needs neither.
ARCH        ?=
ifeq ($(ARCH),aarch64)
CROSS       ?= aarch64-linux-gnu-
else ifneq ($(ARCH),)
$(error ARCH=$(ARCH): only ARCH=aarch64 is known (a native build needs no ARCH))
endif
CROSS       ?=
ifneq ($(CROSS),)
ifeq ($(origin CC),default)
CC          := $(CROSS)gcc
endif
ifeq ($(origin CXX),default)
CXX         := $(CROSS)g++
endif
ifeq ($(origin AR),default)
AR          := $(CROSS)ar
endif
ifeq ($(filter deps clean help,$(MAKECMDGOALS))$(shell command -v $(CC) 2>/dev/null),)
$(error $(CC) not found: make deps ARCH=$(or $(ARCH),aarch64) installs the cross toolchain)
endif
# The target's pkg-config files: Debian's multiarch directory for the triplet.
TRIPLET     := $(patsubst %-,%,$(CROSS))
PKG_CONFIG  := PKG_CONFIG_LIBDIR=/usr/lib/$(TRIPLET)/pkgconfig:/usr/share/pkgconfig PKG_CONFIG_SYSROOT_DIR=/ pkg-config
CROSS_NAME  := -$(firstword $(subst -, ,$(TRIPLET)))
else
PKG_CONFIG  := pkg-config
CROSS_NAME  :=
endif
AR          ?= ar
ifeq ($(SAN),)
BUILD       ?= build$(CROSS_NAME)
else
BUILD       ?= build$(CROSS_NAME)-$(subst $(comma),-,$(SAN))
endif
comma       := ,

OPT         ?= -O2 -g
WARN        := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers
PKGS        := libzstd libxxhash libelf libpng libturbojpeg libdeflate
PKG_CFLAGS  := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lzstd -lxxhash -lelf -lpng16 -lturbojpeg -ldeflate)
# Debian's libdwarf ships no .pc file; fall back to its known location.
DWARF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libdwarf 2>/dev/null || echo -I/usr/include/libdwarf)
DWARF_LIBS   := $(shell $(PKG_CONFIG) --libs libdwarf 2>/dev/null || echo -ldwarf)
SANFLAGS    := $(if $(SAN),-fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all)
CFLAGS_ALL  := -std=gnu17 $(OPT) $(WARN) -fPIC -fno-semantic-interposition -pthread -Ilib/include -Ilib $(PKG_CFLAGS) $(DWARF_CFLAGS) \
               -DPROFEV_VERSION=\"$(VERSION)\" $(SANFLAGS) $(CFLAGS)
LDFLAGS_ALL := -pthread $(SANFLAGS) $(LDFLAGS)
LIBS        := $(PKG_LIBS) $(DWARF_LIBS) -lz -lm

ifeq ($(V),1)
Q :=
else
Q := @
endif

# libprofev: one folder per subsystem (docs/architecture.md).
LIB_DIRS    := common trace image unwind rec conv sym show
LIB_SRC     := $(foreach d,$(LIB_DIRS),$(wildcard lib/$(d)/*.c))
LIB_OBJ     := $(LIB_SRC:%.c=$(BUILD)/%.o)
# The client runtime lives in the traced program: libc and pthreads only.
# lib/unwind/ (call frame information, libc only) is built into both it and
# libprofev: the client's cached unwinder and pfrec's DWARF unwinding of
# samples share it; it uses no other part of lib/. So is the one file of
# lib/common/ that the client needs, the writev loop.
CLIENT_SHARED := lib/common/write_all.c
CLIENT_SRC  := $(wildcard lib/client/*.c lib/unwind/*.c) $(CLIENT_SHARED)
CLIENT_OBJ  := $(CLIENT_SRC:%.c=$(BUILD)/%.o)
# A shared library exports its API and nothing else, so that no internal name
# can clash with a name of the program that links it: libprofev's public
# headers and the client's PROFEV_API mark the API, the rest is hidden.
# Hidden symbols still link from the static archives (commands, unit tests).
# lib/tracy/ exports Tracy's C API names as well and keeps the default.
HIDDEN_CFLAGS = $(if $(filter lib/%,$<),$(if $(filter lib/tracy/%,$<),,-fvisibility=hidden))
# lib/image/: the SIMD paths of the DXT1 encoder are files of their own,
# built for their ISA; CPUID chooses among them at run time.
X86         := $(filter x86_64 i386 i486 i586 i686,$(firstword $(subst -, ,$(shell $(CC) -dumpmachine))))
AVX512_CFLAGS := -mavx2 -mavx512f -mavx512bw -mavx512vl -mavx512vnni
ISA_CFLAGS   = $(if $(X86),$(if $(findstring _avx512,$<),$(AVX512_CFLAGS),$(if $(findstring _avx2.c,$<),-mavx2,$(if $(findstring _sse41.c,$<),-msse4.1))))
# Tracy's macros as a drop-in (<tracy/Tracy.hpp>, <tracy/TracyC.h>): a small
# library on top of the client, its headers installed under include/profev-tracy.
TRACY_SRC   := $(wildcard lib/tracy/*.c)
TRACY_OBJ   := $(TRACY_SRC:%.c=$(BUILD)/%.o)
TRACY_HDR   := $(wildcard lib/include/tracy/*)
CMD_SRC     := $(wildcard cmd/*.c)
CMD_OBJ     := $(CMD_SRC:%.c=$(BUILD)/%.o)
# tests/unit/ mirrors lib/: tests/unit/trace/t_reader_batch.c tests lib/trace/.
UNIT_SRC    := $(wildcard tests/unit/*/t_*.c)
UNIT_BIN    := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TESTLIB_SRC := $(wildcard tests/lib/*.c)
TESTLIB_OBJ := $(TESTLIB_SRC:%.c=$(BUILD)/%.o)
EXAMPLE_SRC := $(wildcard examples/*.c)
EXAMPLE_BIN := $(EXAMPLE_SRC:examples/%.c=$(BUILD)/examples/%)
TOOL_SRC    := $(wildcard tests/tools/*.c)
TOOL_BIN    := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)
BENCH_SRC   := $(wildcard tests/bench/bench_*.c)
BENCH_BIN   := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
# C++ benchmarks (Tracy's macros): built with CXX.
BENCH_CXX_SRC := $(wildcard tests/bench/bench_*.cpp)
BENCH_CXX_BIN := $(BENCH_CXX_SRC:tests/bench/%.cpp=$(BUILD)/bench/%)
CXX         ?= c++
COMMANDS    := pfrec pfdump pfsym pfconv
PUBLIC_HDR  := $(wildcard lib/include/*.h)
LIB_HDR     := $(wildcard lib/include/*.h lib/*/*.h)
MANPAGES    := $(wildcard man/*.[1-9])

STATIC_LIB  := $(BUILD)/libprofev.a
SHARED_LIB  := $(BUILD)/libprofev.so.0
CLIENT_A    := $(BUILD)/libprofev-client.a
CLIENT_SO   := $(BUILD)/libprofev-client.so.0
CLIENT_LIBS := $(if $(CLIENT_SRC),$(CLIENT_A) $(CLIENT_SO))
TRACY_A     := $(BUILD)/libprofev-tracy.a
TRACY_SO    := $(BUILD)/libprofev-tracy.so.0
TRACY_LIBS  := $(if $(TRACY_SRC),$(TRACY_A) $(TRACY_SO))

.SECONDARY:
.PHONY: all lib commands examples tools test unit bench soak fuzz fuzz-build deps demo tsan-test install uninstall clean help

all: lib commands examples ## build libraries, commands and examples (default)

lib: $(STATIC_LIB) $(SHARED_LIB) $(CLIENT_LIBS) $(TRACY_LIBS) ## build libprofev (static and shared), the client runtime and libprofev-tracy

commands: $(BUILD)/profev $(COMMANDS:%=$(BUILD)/%) ## build the profev multi-call binary and its links

examples: $(EXAMPLE_BIN) ## build the instrumented example programs

tools: $(TOOL_BIN) $(BENCH_BIN) $(BENCH_CXX_BIN) ## build the test tools (trace generator) and the benchmarks (a test runs them on tiny inputs)

$(BUILD)/%.o: %.c $(LIB_HDR) $(wildcard cmd/*.h tests/lib/*.h) Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(HIDDEN_CFLAGS) $(ISA_CFLAGS) $(GEN_CFLAGS) -c $< -o $@

# lib/conv/*.js (the flame graph's and the report's scripts) as C strings.
$(BUILD)/gen/%_js.h: lib/conv/%.js
	@mkdir -p $(dir $@)
	$(Q)sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@
$(BUILD)/lib/conv/svg.o: $(BUILD)/gen/flame_js.h
$(BUILD)/lib/conv/html.o: $(BUILD)/gen/report_js.h
$(BUILD)/lib/conv/svg.o $(BUILD)/lib/conv/html.o: GEN_CFLAGS = -I$(BUILD)/gen

$(TRACY_OBJ): $(TRACY_HDR)

$(TRACY_A): $(TRACY_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(TRACY_SO): $(TRACY_OBJ) $(CLIENT_SO)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libprofev-tracy.so.0 $(LDFLAGS_ALL) -o $@ $(TRACY_OBJ) -L$(BUILD) -lprofev-client
	$(Q)ln -sf libprofev-tracy.so.0 $(BUILD)/libprofev-tracy.so

$(STATIC_LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(SHARED_LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libprofev.so.0 $(LDFLAGS_ALL) -o $@ $^ $(LIBS)
	$(Q)ln -sf libprofev.so.0 $(BUILD)/libprofev.so

$(CLIENT_A): $(CLIENT_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(CLIENT_SO): $(CLIENT_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libprofev-client.so.0 $(LDFLAGS_ALL) -o $@ $^
	$(Q)ln -sf libprofev-client.so.0 $(BUILD)/libprofev-client.so

$(BUILD)/profev: $(CMD_OBJ) $(STATIC_LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(CMD_OBJ) $(STATIC_LIB) $(LIBS)

$(COMMANDS:%=$(BUILD)/%): $(BUILD)/profev
	$(Q)ln -sf profev $@

$(BUILD)/tests/%: tests/unit/%.c $(TESTLIB_OBJ) $(STATIC_LIB) $(CLIENT_LIBS) $(TRACY_LIBS) $(wildcard tests/unit/*.h) $(LIB_HDR) $(TRACY_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -Itests/unit -Itests/lib -o $@ $< $(TESTLIB_OBJ) $(STATIC_LIB) $(if $(TRACY_SRC),$(TRACY_A)) $(if $(CLIENT_SRC),$(CLIENT_A)) $(LDFLAGS_ALL) $(LIBS)

$(BUILD)/examples/%: examples/%.c $(CLIENT_LIBS) $(LIB_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(EXAMPLE_CFLAGS) -o $@ $< $(if $(CLIENT_SRC),$(CLIENT_A)) $(LDFLAGS_ALL) -lm $(EXAMPLE_LIBS)

# The GL example links the program's own GL and EGL (the client never does).
$(BUILD)/examples/gpu_game: EXAMPLE_LIBS := -lEGL -lGL
# The Vulkan example loads libvulkan.so.1 itself: it needs Vulkan's headers
# and glslangValidator, which makes its shader's SPIR-V words (make deps
# installs both); without them it is not built.
ifeq ($(and $(wildcard /usr/include/vulkan/vulkan.h),$(shell command -v glslangValidator 2>/dev/null)),)
EXAMPLE_BIN := $(filter-out $(BUILD)/examples/vk_compute,$(EXAMPLE_BIN))
endif
$(BUILD)/examples/vk_compute: $(BUILD)/examples/vk_compute.spv.h
$(BUILD)/examples/vk_compute: EXAMPLE_CFLAGS := -I$(BUILD)/examples
$(BUILD)/examples/vk_compute: EXAMPLE_LIBS := -ldl
$(BUILD)/examples/vk_compute.spv.h: examples/vk_compute.comp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GLSLANG $<")
	$(Q)glslangValidator -V --vn vk_compute_spv -o $@ $< >/dev/null

$(BUILD)/tools/%: tests/tools/%.c $(TESTLIB_OBJ) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -Itests/lib -o $@ $< $(TESTLIB_OBJ) $(STATIC_LIB) $(LDFLAGS_ALL) $(LIBS)

$(BUILD)/bench/%: tests/bench/%.c $(TESTLIB_OBJ) $(STATIC_LIB) $(CLIENT_LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -O3 -Itests/lib -o $@ $< $(TESTLIB_OBJ) $(STATIC_LIB) $(if $(CLIENT_SRC),$(CLIENT_A)) $(LDFLAGS_ALL) $(LIBS) $(BENCH_LIBS)

# The GPU benchmark links the program's own GL and EGL and loads libvulkan.
$(BUILD)/bench/bench_gpu: BENCH_LIBS := -lEGL -lGL -ldl

$(BUILD)/bench/%: tests/bench/%.cpp $(BUILD)/tests/lib/callgrind.o $(BUILD)/tests/lib/bench.o $(STATIC_LIB) $(CLIENT_LIBS) $(TRACY_LIBS) $(TRACY_HDR) $(LIB_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CXX     $<")
	$(Q)$(CXX) -std=c++11 $(OPT) -O3 -Wall -Wextra -pthread -Ilib/include -Itests/lib $(SANFLAGS) $(CXXFLAGS) -o $@ $< \
	  $(BUILD)/tests/lib/callgrind.o $(BUILD)/tests/lib/bench.o $(STATIC_LIB) $(if $(TRACY_SRC),$(TRACY_A)) $(if $(CLIENT_SRC),$(CLIENT_A)) $(LDFLAGS_ALL) $(LIBS)

# Debian packages the build, the tests and the benchmarks need.
DEB_PACKAGES := gcc g++ clang make pkg-config libzstd-dev libxxhash-dev libdwarf-dev libelf-dev zlib1g-dev libdeflate-dev \
                libiberty-dev libdebuginfod-dev debuginfod libc6-dbg libpng-dev libturbojpeg0-dev libjpeg-turbo-progs python3 protobuf-compiler llvm elfutils binutils dwz groff-base valgrind \
                chromium libclang-rt-14-dev lld libegl-dev libgl-dev libgles-dev libgl1-mesa-dri \
                libvulkan-dev mesa-vulkan-drivers glslang-tools
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# make deps ARCH=aarch64: the cross toolchain, qemu-user and binfmt_misc's
# registration (so that an aarch64 pfrec can start an aarch64 program), and
# the libraries above for arm64 (Debian's multiarch).
ifneq ($(CROSS),)
DEB_ARCH     := $(if $(filter aarch64-%,$(CROSS)),arm64,$(error make deps: no Debian architecture known for CROSS=$(CROSS)))
DEB_PACKAGES += gcc-$(TRIPLET) g++-$(TRIPLET) binutils-$(TRIPLET) qemu-user-static binfmt-support \
                $(addsuffix :$(DEB_ARCH),libc6-dev libc6-dbg libstdc++6 libzstd-dev libxxhash-dev libdwarf-dev libelf-dev zlib1g-dev \
                libdeflate-dev libiberty-dev libdebuginfod-dev libpng-dev libturbojpeg0-dev libegl-dev libgl-dev)
endif

deps: ## install the missing Debian build and test dependencies (apt-get)
	$(if $(DEB_ARCH),@dpkg --print-foreign-architectures | grep -qx $(DEB_ARCH) || { echo "dpkg --add-architecture $(DEB_ARCH)"; $(SUDO) dpkg --add-architecture $(DEB_ARCH); })
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null \
	  | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then echo "installing:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	else echo "all build dependencies are installed"; fi
	$(if $(DEB_ARCH),@sh tests/emulator.sh setup $(DEB_ARCH))
	@# The viewer test's npm packages (tests/viewers), again when the lock file changes.
	@lock=tests/viewers/node_modules/.package-lock.json; \
	if [ -f $$lock ] && [ ! tests/viewers/package-lock.json -nt $$lock ] && [ ! tests/viewers/package.json -nt $$lock ]; then \
	  echo "the viewer test's npm packages are installed"; \
	elif ! command -v npm >/dev/null; then echo "make deps: npm not found: install Node.js 20 and npm" >&2; exit 1; \
	else echo "installing the viewer test's npm packages (npm ci --prefix tests/viewers)"; \
	  npm ci --prefix tests/viewers --ignore-scripts --no-audit --no-fund --loglevel=error; fi

demo: all ## record the bundled example game with pfrec, show pfdump --stats and the next step
	$(BUILD)/pfrec -o $(BUILD)/game.bin -- $(BUILD)/examples/game
	$(BUILD)/pfdump --stats $(BUILD)/game.bin
	@echo
	@echo "Next, see it: $(BUILD)/pfconv to perfetto $(BUILD)/game.bin"
	@echo "writes $(BUILD)/game.pftrace; open it in https://ui.perfetto.dev (\"Open trace file\")."
	@echo "The UI runs in your browser and reads the file there: it stays on this machine."

unit: $(UNIT_BIN) ## build the unit tests

# Cross-built tests run under qemu-user: unit tests through EMULATOR, the
# commands and the programs they start through binfmt_misc (make deps
# ARCH=aarch64 registers it), with the multiarch libraries of / (an older
# cross sysroot's ld.so hangs threaded programs).
EMULATOR    ?= $(if $(CROSS),qemu-$(firstword $(subst -, ,$(TRIPLET)))-static)
TEST_ENV     = PROFEV_SAN=$(SAN) $(if $(EMULATOR),PROFEV_EMULATOR=$(EMULATOR) PROFEV_CROSS=$(CROSS) QEMU_LD_PREFIX=/)

# The cross-architecture test (140) compares this build's outputs with the
# native build's, where there is one.
TEST_ENV    += $(if $(CROSS),$(if $(wildcard build/profev),PROFEV_OTHER_BUILD=$(CURDIR)/build))
TESTS       ?=

test: all unit tools ## run every test (unit and CLI), ending with "N passed, N failed, N skipped"; ARCH=aarch64: under qemu-user; TESTS='unit/ cli/134': those only
	$(Q)$(TEST_ENV) sh tests/run.sh $(BUILD) "$(TESTS)"

tsan-test: all unit tools ## run the tests of threaded code: the client, pfrec, the threaded writer, the example game, attaching, the flight recorder and its triggers (use with SAN=thread)
	$(Q)PROFEV_SAN=$(SAN) sh tests/run.sh $(BUILD) t_client
	$(Q)PROFEV_SAN=$(SAN) sh tests/run.sh $(BUILD) t_listen
	$(Q)PROFEV_SAN=$(SAN) sh tests/run.sh $(BUILD) "cli/136 cli/150 cli/153"
	$(Q)PROFEV_SAN=$(SAN) sh tests/run.sh $(BUILD) t_record
	$(Q)PROFEV_SAN=$(SAN) sh tests/run.sh $(BUILD) t_writer_batch
	$(Q)PROFEV_SAN=$(SAN) sh tests/run.sh $(BUILD) cli/101

soak: all ## record the example game at full speed with memory events for SOAK_SECONDS (600): nothing lost, pfrec's RSS flat; RING=30s: under --ring, a snapshot a minute, each readable; not in CI
	$(Q)SOAK_SECONDS=$(SOAK_SECONDS) RING=$(RING) sh tests/soak/run.sh $(BUILD)

bench: all tools $(BENCH_BIN) $(BENCH_CXX_BIN) ## run the benchmarks and print their tables
	$(Q)sh tests/bench/run.sh $(BUILD)

# Fuzzing (tests/fuzz/): one libFuzzer target per decoder entry point, built
# with clang into build-fuzz/ with ASan and UBSan; each runs FUZZ_SECONDS on
# its seed corpus (tests/fuzz/corpus/) and fails on a crash.
FUZZ_BUILD   := build-fuzz
FUZZ_TARGETS ?= reader dump conv_perfetto conv_chrome conv_folded symbolize symtrace debuginfod record dxt1
FUZZ_SECONDS ?= 10
FUZZ_CC      ?= clang
FUZZ_BIN     := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%) $(BUILD)/fuzz/feed $(BUILD)/fuzz/fixsum

fuzz: ## build the fuzz targets (clang, libFuzzer) and run each FUZZ_SECONDS (10) on its corpus; FUZZ_TARGETS picks some
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) SAN=fuzzer-no-link,address,undefined \
	  FUZZ_TARGETS="$(FUZZ_TARGETS)" fuzz-build
	$(Q)sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-build: $(FUZZ_BIN)

$(BUILD)/fuzz/conv_%: tests/fuzz/fuzz_conv.c tests/fuzz/fuzz.h $(STATIC_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< ($*)")
	$(Q)$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -DFUZZ_FORMAT=PROFEV_CONV_$(shell echo $* | tr a-z A-Z) \
	  -o $@ $< $(STATIC_LIB) $(LDFLAGS_ALL) $(LIBS)

$(BUILD)/fuzz/feed: tests/fuzz/feed.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -O2 -o $@ $<

$(BUILD)/fuzz/fixsum: tests/fuzz/fixsum.c tests/fuzz/fuzz.h $(STATIC_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(STATIC_LIB) $(LDFLAGS_ALL) $(LIBS)

$(BUILD)/fuzz/%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(STATIC_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(STATIC_LIB) $(LDFLAGS_ALL) $(LIBS)

$(BUILD)/profev.pc: Makefile
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: profev' 'Description: profev trace writer and reader' 'Version: $(VERSION)' \
	  'Libs: -L$${libdir} -lprofev' 'Libs.private: $(PKG_LIBS) $(DWARF_LIBS)' \
	  'Cflags: -I$${includedir}' > $@

$(BUILD)/profev-client.pc: Makefile
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: profev-client' 'Description: profev instrumentation runtime (<profev.h>)' \
	  'Version: $(VERSION)' 'Libs: -L$${libdir} -lprofev-client -pthread' 'Cflags: -I$${includedir}' > $@

# -I.../profev-tracy finds <tracy/Tracy.hpp>, -I.../profev-tracy/tracy "Tracy.hpp";
# kept apart from include/ so that a real Tracy installed there stays visible.
$(BUILD)/profev-tracy.pc: Makefile
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: profev-tracy' "Description: Tracy's macros recorded by profev (<tracy/Tracy.hpp>, <tracy/TracyC.h>)" \
	  'Version: $(VERSION)' 'Libs: -L$${libdir} -lprofev-tracy -lprofev-client -pthread' \
	  'Cflags: -I$${includedir}/profev-tracy -I$${includedir}/profev-tracy/tracy -I$${includedir}' > $@

install: all $(BUILD)/profev.pc $(BUILD)/profev-client.pc $(BUILD)/profev-tracy.pc ## install under $(DESTDIR)$(PREFIX)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(PKGDIR)
	install -m 755 $(BUILD)/profev $(DESTDIR)$(BINDIR)/profev
	for c in $(COMMANDS); do ln -sf profev $(DESTDIR)$(BINDIR)/$$c; done
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libprofev.so.0 $(DESTDIR)$(LIBDIR)/libprofev.so
	$(if $(CLIENT_SRC),install -m 644 $(CLIENT_A) $(DESTDIR)$(LIBDIR)/)
	$(if $(CLIENT_SRC),install -m 755 $(CLIENT_SO) $(DESTDIR)$(LIBDIR)/)
	$(if $(CLIENT_SRC),ln -sf libprofev-client.so.0 $(DESTDIR)$(LIBDIR)/libprofev-client.so)
	install -m 644 $(TRACY_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(TRACY_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libprofev-tracy.so.0 $(DESTDIR)$(LIBDIR)/libprofev-tracy.so
	install -m 644 $(PUBLIC_HDR) $(DESTDIR)$(INCDIR)/
	install -d $(DESTDIR)$(INCDIR)/profev-tracy/tracy
	install -m 644 $(TRACY_HDR) $(DESTDIR)$(INCDIR)/profev-tracy/tracy/
	install -m 644 $(BUILD)/profev.pc $(BUILD)/profev-client.pc $(BUILD)/profev-tracy.pc $(DESTDIR)$(PKGDIR)/
	for m in $(MANPAGES); do s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
	  install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done

uninstall: ## remove what install put under $(DESTDIR)$(PREFIX)
	rm -f $(DESTDIR)$(BINDIR)/profev $(COMMANDS:%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(DESTDIR)$(LIBDIR)/libprofev* $(DESTDIR)$(PKGDIR)/profev.pc $(DESTDIR)$(PKGDIR)/profev-client.pc
	rm -f $(DESTDIR)$(PKGDIR)/profev-tracy.pc
	rm -f $(PUBLIC_HDR:lib/include/%=$(DESTDIR)$(INCDIR)/%)
	rm -rf $(DESTDIR)$(INCDIR)/profev-tracy
	for m in $(MANPAGES); do s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; done

clean: ## remove build outputs
	rm -rf build build-*

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 12
