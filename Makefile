# crate — build, test, install.  Run ./configure first (scripts/quickstart.sh does it all).
#
#   make                  build ./build/crate (the launcher), ./build/crate-core and ./build/crate-query
#   make check            every test (unit, integration on ../shared/corpus, tmux UI)
#   make check-asan       the same suite built with -fsanitize=address,undefined
#   make check WITH_ASAN=1  both at once, in one queue (what CI runs)
#   make bench            performance benchmarks (report only, never pass/fail)
#   make fuzz             libFuzzer targets, FUZZ_SECONDS each
#   make install|uninstall prefix=/usr DESTDIR=/tmp/x   (bindir, libexecdir, mandir, datadir too)
#   make dist             crate-VERSION.tar.gz of the tracked files, with configure
#   make distcheck        that tarball unpacked, configured, built and unit-tested elsewhere
#
# ./configure CFLAGS=... CPPFLAGS=... LDFLAGS=... (or the same on make's
# command line) are the user's: they come after the project's own flags, so
# they can add to or override -O2 -g but never drop -std=c11, -pthread or
# the warnings.
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

# PREFIX=... is the old spelling of prefix=... and still works.
ifdef PREFIX
prefix = $(PREFIX)
endif
DESTDIR ?=
BUILDDIR ?= build
SANITIZE ?=
include warnings.mk

# The project's flags; the user's CPPFLAGS, CFLAGS, CXXFLAGS and LDFLAGS
# (config.mk, or make's command line) follow them in every rule.
CRATE_OPT = -O2 -g
# A tree built with SANITIZE=1 remembers it (and its CRATE_OPT) in
# BUILDDIR/sanitize.mk: a later make of that tree with no SANITIZE given,
# as the install suite's `make BUILDDIR=build-asan install`
# from a run of both trees, builds it the same way. Without it, that make
# rebuilt the sanitizer tree without sanitizers while its other suites
# were running. `make clean` forgets it.
ifeq ($(SANITIZE),)
-include $(BUILDDIR)/sanitize.mk
else
$(shell mkdir -p '$(BUILDDIR)' && printf 'SANITIZE = %s\nCRATE_OPT = %s\n' '$(SANITIZE)' '$(CRATE_OPT)' >'$(BUILDDIR)/sanitize.mk')
endif
CRATE_CPPFLAGS = -D_GNU_SOURCE -DCRATE_VERSION='"$(VERSION)"' -Isrc -I. $(DEP_CFLAGS) -MMD -MP
# A section per function and object: crate-query is linked with
# --gc-sections (below), keeping only what its command reaches.
CRATE_CFLAGS = -std=c11 $(WARN) $(CRATE_OPT) -pthread -ffunction-sections -fdata-sections
ifneq ($(SANITIZE),)
CRATE_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
CRATE_LDFLAGS += -fsanitize=address,undefined
endif
ALL_CFLAGS = $(CRATE_CPPFLAGS) $(CPPFLAGS) $(CRATE_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(CRATE_LDFLAGS) $(LDFLAGS)
LIBS = $(DEP_LIBS) -lm -pthread
# C++ is used only by the TagLib shim; linking through $(CXX) brings its runtime.
CRATE_CXXFLAGS = -std=c++17 $(CXXWARN) $(CRATE_OPT) -pthread -ffunction-sections -fdata-sections
ifneq ($(SANITIZE),)
CRATE_CXXFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
ALL_CXXFLAGS = $(CRATE_CPPFLAGS) $(CPPFLAGS) $(CRATE_CXXFLAGS) $(CXXFLAGS)

LIB_SRC  := $(filter-out src/main.c src/launcher.c src/query.c,$(wildcard src/*.c src/*/*.c ui/*.c))
LIB_CXX_SRC := $(wildcard src/*/*.cpp)
# The C++ shim (TagLib) is linked beside libcrate.a, not inside it: TagLib's
# headers give it a static constructor (iostream's) that a link keeps
# whenever the object is in, so from the archive it would pull C++'s
# runtime into crate-query, which reads no tags.
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILDDIR)/%.o)
LIB_CXX_OBJ := $(LIB_CXX_SRC:%.cpp=$(BUILDDIR)/%.o)
MAIN_OBJ := $(BUILDDIR)/src/main.o
QUERY_OBJ := $(BUILDDIR)/src/query.o
LAUNCH_OBJ := $(BUILDDIR)/src/launcher.o $(BUILDDIR)/gen/help_text.o
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILDDIR)/tests/%)
HARNESS_OBJ := $(BUILDDIR)/tests/harness.o
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILDDIR)/bench/%)

.PHONY: all check check-unit check-asan check-valgrind test-programs asan-test-programs bench bench-quick fuzz install uninstall clean distclean demo dist distcheck
all: $(BUILDDIR)/crate $(BUILDDIR)/crate-query

ifeq ($(V),1)
Q =
else
Q = @
endif

# Objects are rebuilt when the compiler or its flags change: a pulled
# change that adds a flag (-ffunction-sections, which crate-query's
# --gc-sections link relies on) must not be linked against objects built
# without it. The file is rewritten only when the flags differ, like
# core_path.h below.
BUILD_FLAGS = $(CC) $(ALL_CFLAGS) / $(CXX) $(ALL_CXXFLAGS)
$(BUILDDIR)/gen/build-flags: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '$(subst ','\'',$(BUILD_FLAGS))' >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

$(BUILDDIR)/%.o: %.c $(BUILDDIR)/gen/build-flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILDDIR)/%.o: %.cpp $(BUILDDIR)/gen/build-flags
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
$(BUILDDIR)/crate-core: $(MAIN_OBJ) $(BUILDDIR)/libcrate.a $(LIB_CXX_OBJ)
	$(CXX) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# crate-query (src/query.c) runs `crate search` when no running crate
# answered it: the launcher execs it instead of crate-core. Linked with
# SQLite alone and --gc-sections, so the link itself proves that nothing
# the search reaches calls FFmpeg, TagLib, ALSA or curses (a function that
# does fails here with an undefined reference) and the program starts
# without loading them.
#
# Sanitizer builds too: there ASan's table of a file's globals (each
# registered at start-up) keeps every global alive, and the files below
# hold tables of command handlers, which would keep the whole player and
# its libraries. crate-query links its own copy of them built without that
# table (--param asan-globals=0: their globals lose only ASan's red zones,
# in crate-query alone; crate-core, the unit tests and crate-query's other
# files keep them). That is what the shell suites start by the thousand:
# a sanitizer crate-query loading 9 libraries instead of ~150 costs about
# half the processor time a search did. A file that gets such a table
# shows here as an undefined reference to FFmpeg, ALSA, sd_bus or aubio
# when the sanitizer tree links crate-query: add it to the list.
QUERY_ASAN_GLOBALS_OFF := src/app/app_mpris.c src/cli/cli_table.c src/cli/cmd_analysis.c \
	src/cli/cmd_library.c src/cli/cmd_play.c src/cli/cmd_playlist.c
ifeq ($(SANITIZE),)
QUERY_OWN_OBJ :=
else
QUERY_OWN_OBJ := $(QUERY_ASAN_GLOBALS_OFF:%.c=$(BUILDDIR)/query-obj/%.o)
$(BUILDDIR)/query-obj/%.o: %.c $(BUILDDIR)/gen/build-flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (crate-query)")
	$(Q)$(CC) $(ALL_CFLAGS) --param asan-globals=0 -c -o $@ $<
endif
# The copies come before the archive, so its members for those files are
# never pulled in.
$(BUILDDIR)/crate-query: $(QUERY_OBJ) $(QUERY_OWN_OBJ) $(BUILDDIR)/libcrate.a
	$(CC) $(ALL_LDFLAGS) -Wl,--gc-sections -Wl,--as-needed -o $@ $^ $(SQLITE3_LIBS) -lm -pthread

# The launcher's --help is crate-core's, captured at build time.
$(BUILDDIR)/gen/help_text.c: $(BUILDDIR)/crate-core scripts/embed-text.sh
	@mkdir -p $(dir $@)
	$(Q)scripts/embed-text.sh crate_help_text $(BUILDDIR)/crate-core --help >$@.tmp && mv $@.tmp $@

$(BUILDDIR)/gen/help_text.o: $(BUILDDIR)/gen/help_text.c
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The launcher finds an installed crate-core by this path from its own
# directory: bindir to libexecdir/crate, computed by name (no symlinks
# followed) so that any prefix, DESTDIR or relocated tree keeps it. The
# header is rewritten only when the path changes (`make install
# libexecdir=...` relinks the launcher), like git's GIT-CFLAGS.
CORE_RELDIR := $(shell realpath -m -s --relative-to='$(bindir)' '$(libexecdir)/crate' 2>/dev/null)
$(BUILDDIR)/gen/core_path.h: FORCE
	@mkdir -p $(dir $@)
	@printf '#define CRATE_CORE_RELDIR "%s"\n' '$(or $(CORE_RELDIR),../libexec/crate)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
$(BUILDDIR)/src/launcher.o: $(BUILDDIR)/gen/core_path.h
$(BUILDDIR)/src/launcher.o: private CRATE_CPPFLAGS += -I$(BUILDDIR)/gen
.PHONY: FORCE

$(BUILDDIR)/crate: $(LAUNCH_OBJ) $(BUILDDIR)/libcrate.a $(BUILDDIR)/crate-core $(BUILDDIR)/crate-query
	$(CC) $(ALL_LDFLAGS) -Wl,--as-needed -o $@ $(LAUNCH_OBJ) $(BUILDDIR)/libcrate.a -pthread

$(BUILDDIR)/tests/harness.o: tests/harness.c tests/harness.h $(BUILDDIR)/gen/build-flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -c -o $@ $<

# Test and bench programs are linked with gold (binutils) when the
# compiler can use it: a CI run links ~120 of them against ~150 shared
# libraries, and gold takes a third of GNU ld's time for each (0.4 s
# instead of 1.1 s). The installed programs keep the default linker.
TEST_LD := $(shell $(CC) -fuse-ld=gold -Wl,--version 2>/dev/null | grep -q 'GNU gold' && echo -fuse-ld=gold)

# Test and bench programs: each one's object is a target of its own, so
# the dependency file the compiler writes beside it (-MMD, included below)
# rebuilds the program when a header it includes changes, a test's or a
# bench's own helpers (tests/unit/*.h, bench/*.h) included: a change of
# the library alone is not the only one that matters.
$(BUILDDIR)/tests/obj/%.o: tests/unit/test_%.c $(BUILDDIR)/gen/build-flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -c -o $@ $<

$(BUILDDIR)/tests/test_%: $(BUILDDIR)/tests/obj/%.o $(HARNESS_OBJ) $(BUILDDIR)/libcrate.a $(LIB_CXX_OBJ)
	$(CXX) $(ALL_LDFLAGS) $(TEST_LD) -o $@ $< $(HARNESS_OBJ) $(BUILDDIR)/libcrate.a $(LIB_CXX_OBJ) $(LIBS)

$(BUILDDIR)/bench/obj/%.o: bench/%.c $(BUILDDIR)/gen/build-flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILDDIR)/bench/%: $(BUILDDIR)/bench/obj/%.o $(BUILDDIR)/libcrate.a $(LIB_CXX_OBJ)
	$(CXX) $(ALL_LDFLAGS) $(TEST_LD) -o $@ $< $(BUILDDIR)/libcrate.a $(LIB_CXX_OBJ) $(LIBS)

# Kept after linking: make would delete them as intermediate files and
# build every program again on the next run.
.PRECIOUS: $(BUILDDIR)/tests/obj/%.o $(BUILDDIR)/bench/obj/%.o

# One runner for everything: unit binaries, then shell integration and tmux UI tests.
# `make check WITH_ASAN=1` (CI) also runs every suite of the sanitizer build,
# in the same queue: one build's long suites fill the time the other's spend
# waiting for audio played at its pace or a terminal to redraw.
CHECK_TREES := $(BUILDDIR) $(if $(WITH_ASAN),build-asan)
# The benchmarks are built too (not run): nothing else compiles them, and
# an interface change once left `make bench` broken for a whole round.
check: $(BUILDDIR)/crate $(UNIT_BIN) $(if $(SANITIZE),,$(BENCH_BIN)) $(if $(WITH_ASAN),asan-test-programs)
	@tests/run-tests.sh $(CHECK_TREES)

# What a test run needs built: the programs and the unit test binaries.
test-programs: $(BUILDDIR)/crate $(UNIT_BIN)

asan-test-programs:
	@$(MAKE) --no-print-directory BUILDDIR=build-asan SANITIZE=1 CRATE_OPT='-O1 -g' WITH_ASAN= test-programs

# Only the C unit tests (fast; used while hacking and by valgrind runs).
check-unit: $(UNIT_BIN)
	@TESTS_ONLY=unit tests/run-tests.sh $(BUILDDIR)

# The unit tests under valgrind (definite leaks and memory errors fail a test).
check-valgrind: $(UNIT_BIN)
	@TESTS_ONLY=unit TEST_WRAPPER="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --suppressions=tests/valgrind.supp" \
		TEST_TIMEOUT=900 tests/run-tests.sh $(BUILDDIR)

check-asan:
	@$(MAKE) --no-print-directory BUILDDIR=build-asan SANITIZE=1 CRATE_OPT='-O1 -g' WITH_ASAN= check

bench: $(BUILDDIR)/crate $(BENCH_BIN)
	@bench/run-bench.sh $(BUILDDIR) full

bench-quick: $(BUILDDIR)/crate $(BENCH_BIN)
	@bench/run-bench.sh $(BUILDDIR) quick

FUZZ_SECONDS ?= 60
fuzz:
	@tests/fuzz/run-fuzz.sh $(FUZZ_SECONDS)

# The interface on the twelve-track demo library, in its own database.
demo: $(BUILDDIR)/crate
	@scripts/demo.sh $(BUILDDIR)/crate

# The launcher in bindir, crate-core and crate-query in libexecdir/crate
# (found from the launcher by CRATE_CORE_RELDIR above), crate(1) in mandir, the example
# configuration in datadir/crate. DESTDIR stages the whole tree.
install: all
	$(INSTALL) -d '$(DESTDIR)$(bindir)' '$(DESTDIR)$(libexecdir)/crate' \
		'$(DESTDIR)$(mandir)/man1' '$(DESTDIR)$(datadir)/crate'
	$(INSTALL_PROGRAM) $(BUILDDIR)/crate '$(DESTDIR)$(bindir)/crate'
	$(INSTALL_PROGRAM) $(BUILDDIR)/crate-core '$(DESTDIR)$(libexecdir)/crate/crate-core'
	$(INSTALL_PROGRAM) $(BUILDDIR)/crate-query '$(DESTDIR)$(libexecdir)/crate/crate-query'
	$(INSTALL_DATA) doc/crate.1 '$(DESTDIR)$(mandir)/man1/crate.1'
	$(INSTALL_DATA) data/config.example '$(DESTDIR)$(datadir)/crate/config.example'

# Removes what install wrote and the two directories that are crate's own.
uninstall:
	rm -f '$(DESTDIR)$(bindir)/crate' '$(DESTDIR)$(libexecdir)/crate/crate-core' \
		'$(DESTDIR)$(libexecdir)/crate/crate-query' \
		'$(DESTDIR)$(mandir)/man1/crate.1' '$(DESTDIR)$(datadir)/crate/config.example'
	-rmdir '$(DESTDIR)$(libexecdir)/crate' '$(DESTDIR)$(datadir)/crate' 2>/dev/null

# The tracked files of this checkout (as they are in the work tree) plus the
# generated configure, so that the tarball needs no autoconf to build.
DIST_NAME = crate-$(VERSION)
dist: configure
	@scripts/make-dist.sh $(DIST_NAME)

# make dist, then configure, build and unit-test the tarball in a temporary
# directory (scripts/distcheck.sh); prints "N passed, N failed".
distcheck:
	@scripts/distcheck.sh $(DIST_NAME)

clean:
	rm -rf build build-asan build-* tests/fuzz/build

distclean: clean
	rm -rf config.mk config.log config.status configure autom4te.cache aclocal.m4 bench/results/latest.json crate-*.tar.gz

-include $(shell find $(BUILDDIR) -name '*.d' 2>/dev/null)
