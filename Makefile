# crate — build, test, install.  Run ./configure first (scripts/quickstart.sh does it all).
#
#   make                  build ./build/crate (the launcher) and ./build/crate-core
#   make check            every test (unit, integration on ../shared/corpus, tmux UI)
#   make check-asan       the same suite built with -fsanitize=address,undefined
#   make bench            performance benchmarks (report only, never pass/fail)
#   make fuzz             libFuzzer targets, FUZZ_SECONDS each
#   make install|uninstall PREFIX=/usr DESTDIR=/tmp/x
#
# Sources are found by wildcard: adding a file under src/, ui/ or tests/unit/ needs no edit here.

ifeq ($(wildcard config.mk),)
ifeq ($(filter clean distclean,$(MAKECMDGOALS)),)
$(error config.mk is missing: run 'autoreconf -fi && ./configure' (or scripts/quickstart.sh))
endif
endif
-include config.mk

.DEFAULT_GOAL := all

# A checkout that changes configure.ac or config.mk.in (a new dependency)
# reconfigures by itself, with the options of the last ./configure.
ifneq ($(wildcard config.status),)
config.mk: config.mk.in config.status
	./config.status --quiet
config.status: configure
	./config.status --recheck --quiet
configure: configure.ac
	autoreconf -fi
endif

PREFIX ?= $(prefix)
DESTDIR ?=
BUILDDIR ?= build
WERROR ?= -Werror
SANITIZE ?=

CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Wvla -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wno-format-truncation $(WERROR)
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DCRATE_VERSION='"$(VERSION)"' -DCRATE_DATADIR='"$(datadir)/crate"' \
	-Isrc -I. $(WARN) $(CFLAGS) $(DEP_CFLAGS) -MMD -MP -pthread
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ALL_LDFLAGS += -fsanitize=address,undefined
endif
LIBS = $(DEP_LIBS) -lm -pthread
# C++ is used only by the TagLib shim; linking through $(CXX) brings its runtime.
CXXWARN = -Wall -Wextra -Wvla -Wshadow -Wformat=2 $(WERROR)
ALL_CXXFLAGS = -std=c++17 -D_GNU_SOURCE -Isrc -I. $(CXXWARN) $(CFLAGS) $(DEP_CFLAGS) -MMD -MP -pthread
ifneq ($(SANITIZE),)
ALL_CXXFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

LIB_SRC  := $(filter-out src/main.c src/launcher.c,$(wildcard src/*.c src/*/*.c ui/*.c))
LIB_CXX_SRC := $(wildcard src/*/*.cpp)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILDDIR)/%.o) $(LIB_CXX_SRC:%.cpp=$(BUILDDIR)/%.o)
MAIN_OBJ := $(BUILDDIR)/src/main.o
LAUNCH_OBJ := $(BUILDDIR)/src/launcher.o $(BUILDDIR)/gen/help_text.o
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILDDIR)/tests/%)
HARNESS_OBJ := $(BUILDDIR)/tests/harness.o
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILDDIR)/bench/%)

.PHONY: all check check-unit check-asan check-valgrind bench bench-quick fuzz install uninstall clean distclean demo
all: $(BUILDDIR)/crate

ifeq ($(V),1)
Q =
else
Q = @
endif

$(BUILDDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILDDIR)/%.o: %.cpp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CXX     $<")
	$(Q)$(CXX) $(ALL_CXXFLAGS) -c -o $@ $<

$(BUILDDIR)/libcrate.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# Two programs (README, "Where the code departs from DESIGN.md"): crate-core
# is the whole player; crate is a launcher that answers --version, --help and
# `remote` itself and execs crate-core for everything else. The launcher is
# linked without DEP_LIBS on purpose: a one-shot command must not load
# FFmpeg, TagLib, ALSA, ncurses or SQLite, and a change that makes it need
# one fails to link here instead of silently slowing every `crate remote`.
$(BUILDDIR)/crate-core: $(MAIN_OBJ) $(BUILDDIR)/libcrate.a
	$(CXX) $(ALL_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# The launcher's --help is crate-core's, captured at build time.
$(BUILDDIR)/gen/help_text.c: $(BUILDDIR)/crate-core scripts/embed-text.sh
	@mkdir -p $(dir $@)
	$(Q)scripts/embed-text.sh crate_help_text $(BUILDDIR)/crate-core --help >$@.tmp && mv $@.tmp $@

$(BUILDDIR)/gen/help_text.o: $(BUILDDIR)/gen/help_text.c
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILDDIR)/crate: $(LAUNCH_OBJ) $(BUILDDIR)/libcrate.a $(BUILDDIR)/crate-core
	$(CC) $(ALL_LDFLAGS) $(LDFLAGS) -Wl,--as-needed -o $@ $(LAUNCH_OBJ) $(BUILDDIR)/libcrate.a -pthread

$(BUILDDIR)/tests/harness.o: tests/harness.c tests/harness.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -c -o $@ $<

$(BUILDDIR)/tests/test_%: tests/unit/test_%.c $(HARNESS_OBJ) $(BUILDDIR)/libcrate.a
	@mkdir -p $(dir $@)
	@mkdir -p $(BUILDDIR)/tests/obj
	$(CC) $(ALL_CFLAGS) -Itests -c -o $(BUILDDIR)/tests/obj/$*.o $<
	$(CXX) $(ALL_LDFLAGS) $(LDFLAGS) -o $@ $(BUILDDIR)/tests/obj/$*.o $(HARNESS_OBJ) $(BUILDDIR)/libcrate.a $(LIBS)

$(BUILDDIR)/bench/%: bench/%.c $(BUILDDIR)/libcrate.a
	@mkdir -p $(dir $@)
	@mkdir -p $(BUILDDIR)/bench/obj
	$(CC) $(ALL_CFLAGS) -c -o $(BUILDDIR)/bench/obj/$*.o $<
	$(CXX) $(ALL_LDFLAGS) $(LDFLAGS) -o $@ $(BUILDDIR)/bench/obj/$*.o $(BUILDDIR)/libcrate.a $(LIBS)

# One runner for everything: unit binaries, then shell integration and tmux UI tests.
check: $(BUILDDIR)/crate $(UNIT_BIN)
	@tests/run-tests.sh $(BUILDDIR)

# Only the C unit tests (fast; used while hacking and by valgrind runs).
check-unit: $(UNIT_BIN)
	@TESTS_ONLY=unit tests/run-tests.sh $(BUILDDIR)

# The unit tests under valgrind (definite leaks and memory errors fail a test).
check-valgrind: $(UNIT_BIN)
	@TESTS_ONLY=unit TEST_WRAPPER="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --suppressions=tests/valgrind.supp" \
		TEST_TIMEOUT=900 tests/run-tests.sh $(BUILDDIR)

check-asan:
	@$(MAKE) --no-print-directory BUILDDIR=build-asan SANITIZE=1 CFLAGS='-O1 -g' check

bench: $(BUILDDIR)/crate $(BENCH_BIN)
	@bench/run-bench.sh $(BUILDDIR) full

bench-quick: $(BUILDDIR)/crate $(BENCH_BIN)
	@bench/run-bench.sh $(BUILDDIR) quick

FUZZ_SECONDS ?= 60
fuzz:
	@tests/fuzz/run-fuzz.sh $(FUZZ_SECONDS)

demo: $(BUILDDIR)/crate
	@scripts/demo.sh $(BUILDDIR)/crate

# crate finds crate-core at ../libexec/crate/ from its own directory.
install: $(BUILDDIR)/crate
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/crate $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/crate
	install -m 755 $(BUILDDIR)/crate $(DESTDIR)$(PREFIX)/bin/crate
	install -m 755 $(BUILDDIR)/crate-core $(DESTDIR)$(PREFIX)/libexec/crate/crate-core
	install -m 644 doc/crate.1 $(DESTDIR)$(PREFIX)/share/man/man1/crate.1
	install -m 644 data/config.example $(DESTDIR)$(PREFIX)/share/crate/config.example

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/crate $(DESTDIR)$(PREFIX)/share/man/man1/crate.1
	rm -f $(DESTDIR)$(PREFIX)/libexec/crate/crate-core
	-rmdir $(DESTDIR)$(PREFIX)/libexec/crate 2>/dev/null
	rm -f $(DESTDIR)$(PREFIX)/share/crate/config.example
	-rmdir $(DESTDIR)$(PREFIX)/share/crate 2>/dev/null

clean:
	rm -rf build build-asan build-* tests/fuzz/build

distclean: clean
	rm -rf config.mk config.log config.status configure autom4te.cache aclocal.m4 bench/results/latest.json

-include $(shell find $(BUILDDIR) -name '*.d' 2>/dev/null)
