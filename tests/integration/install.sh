#!/usr/bin/env bash
# `make install` and `make uninstall` (issue 15): a staged install into
# DESTDIR with prefix=/usr puts the launcher, crate-core, crate-query,
# crate(1) and the example configuration where a distribution expects them;
# the installed crate runs the installed crate-core and crate-query, also
# after the tree is moved; the
# directory variables are honoured; uninstall removes what install wrote.
# Also: every script the Makefile runs exists, and the licence is named.
. "$(dirname "$0")/../lib.sh"

VERSION=$(sed -n 's/^VERSION = //p' "$SRCDIR/config.mk")
# mk ARGS...: make in the source tree on this suite's build directory.
mk() { make --no-print-directory -s -C "$SRCDIR" BUILDDIR="$BUILDDIR" "$@" >"$T_TMP/make.log" 2>&1; }
# run CMD...: stdout in $OUT, stderr in $ERR, status in $RC.
run() { "$@" >"$T_TMP/out" 2>"$T_TMP/err"; RC=$?; OUT=$(cat "$T_TMP/out"); ERR=$(cat "$T_TMP/err"); }
# files DIR: the files under DIR with their modes, sorted, relative to DIR.
files() { (cd "$1" && find . -type f -printf '%m %P\n' | sort); }

D=$T_TMP/dest
t_begin building_one_test_program_keeps_the_tree_s_flags
# A test program built alone (as when hacking on one suite) and the whole
# tree are built with the same flags: the launcher's own -I for its
# generated header used to reach build-flags whenever the launcher was the
# first to ask for it, so `make` and `make build/tests/test_base` each
# found the other's flags and rebuilt the whole tree, and a `make install`
# after such a build rebuilt it under the suites running on it.
flags_before=$(cat "$SRCDIR/$BUILDDIR/gen/build-flags" 2>/dev/null)
mk "$BUILDDIR/tests/test_base" || t_fail "make test_base: $(tail -5 "$T_TMP/make.log")"
[ "$(cat "$SRCDIR/$BUILDDIR/gen/build-flags" 2>/dev/null)" = "$flags_before" ] ||
	t_fail "building one test program changed $BUILDDIR's flags"

t_begin install_puts_files_in_their_dirs
flags_before=$(cat "$SRCDIR/$BUILDDIR/gen/build-flags" 2>/dev/null)
mk install DESTDIR="$D" prefix=/usr || t_fail "make install: $(tail -5 "$T_TMP/make.log")"
# The tree is installed as it was built: a sanitizer tree, made with no
# SANITIZE given (a run of both trees), was rebuilt without sanitizers
# under the suites still running on it.
[ "$(cat "$SRCDIR/$BUILDDIR/gen/build-flags" 2>/dev/null)" = "$flags_before" ] ||
	t_fail "make install rebuilt $BUILDDIR with other flags"
want="644 usr/share/crate/config.example
644 usr/share/man/man1/crate.1
755 usr/bin/crate
755 usr/libexec/crate/crate-core
755 usr/libexec/crate/crate-query"
got=$(files "$D")
[ "$got" = "$want" ] || t_fail "installed: $got"
cmp -s "$D/usr/share/man/man1/crate.1" "$SRCDIR/doc/crate.1" || t_fail "man page differs from doc/crate.1"
cmp -s "$D/usr/share/crate/config.example" "$SRCDIR/data/config.example" || t_fail "config.example differs"

t_begin installed_crate_runs_installed_core
run "$D/usr/bin/crate" --version
[ "$RC" -eq 0 ] && [ "$OUT" = "crate $VERSION" ] || t_fail "--version: $RC '$OUT' '$ERR'"
run "$D/usr/bin/crate" --help
[ "$RC" -eq 0 ] && echo "$OUT" | grep -q '^usage: crate' || t_fail "--help: $RC '$ERR'"
# search runs crate-query, list crate-core: only the installed ones can be
# found from there.
run "$D/usr/bin/crate" --db "$T_TMP/lib.db" --config /dev/null search 'artist:nobody'
[ "$RC" -eq 0 ] && [ -f "$T_TMP/lib.db" ] || t_fail "search through the installed query: $RC '$ERR'"
run "$D/usr/bin/crate" --db "$T_TMP/lib.db" --config /dev/null list
[ "$RC" -eq 0 ] || t_fail "list through the installed core: $RC '$ERR'"
# Relocatable: the launcher finds crate-core from where it is, not from prefix.
mkdir -p "$T_TMP/moved" && mv "$D/usr" "$T_TMP/moved/usr"
run "$T_TMP/moved/usr/bin/crate" --db "$T_TMP/lib.db" --config /dev/null search 'artist:nobody'
[ "$RC" -eq 0 ] || t_fail "after moving the tree: $RC '$ERR'"
mv "$T_TMP/moved/usr" "$D/usr"

t_begin uninstall_removes_what_install_wrote
mkdir -p "$D/usr/share/man/man1/keep" # a directory that is not crate's stays
mk uninstall DESTDIR="$D" prefix=/usr || t_fail "make uninstall: $(tail -5 "$T_TMP/make.log")"
[ -z "$(files "$D")" ] || t_fail "left after uninstall: $(files "$D")"
[ ! -e "$D/usr/libexec/crate" ] && [ ! -e "$D/usr/share/crate" ] || t_fail "crate's own directories remain"
[ -d "$D/usr/share/man/man1/keep" ] || t_fail "uninstall removed a directory that is not crate's"

t_begin install_honours_directory_variables
D2=$T_TMP/dest2
mk install DESTDIR="$D2" prefix=/opt/crate mandir=/opt/man datadir=/opt/data ||
	t_fail "make install: $(tail -5 "$T_TMP/make.log")"
want="644 opt/data/crate/config.example
644 opt/man/man1/crate.1
755 opt/crate/bin/crate
755 opt/crate/libexec/crate/crate-core
755 opt/crate/libexec/crate/crate-query"
[ "$(files "$D2")" = "$want" ] || t_fail "installed: $(files "$D2")"
run "$D2/opt/crate/bin/crate" --db "$T_TMP/lib.db" --config /dev/null search 'artist:nobody'
[ "$RC" -eq 0 ] || t_fail "search: $RC '$ERR'"
mk uninstall DESTDIR="$D2" prefix=/opt/crate mandir=/opt/man datadir=/opt/data
[ -z "$(files "$D2")" ] || t_fail "left after uninstall: $(files "$D2")"
# PREFIX= is the old spelling of prefix= and still works.
mk install DESTDIR="$D2" PREFIX=/usr/local || t_fail "PREFIX=: $(tail -5 "$T_TMP/make.log")"
[ -x "$D2/usr/local/bin/crate" ] && [ -x "$D2/usr/local/libexec/crate/crate-core" ] ||
	t_fail "PREFIX=/usr/local: $(files "$D2")"
mk uninstall DESTDIR="$D2" PREFIX=/usr/local
[ -z "$(files "$D2")" ] || t_fail "left after uninstall PREFIX=: $(files "$D2")"

t_begin makefile_runs_only_scripts_that_exist
# `make demo` once ran a scripts/demo.sh that was not there.
n=0
for s in $(grep -oE '(scripts|tests|bench)/[A-Za-z0-9_./-]+\.sh' "$SRCDIR/Makefile" | sort -u); do
	n=$((n + 1))
	[ -x "$SRCDIR/$s" ] || t_fail "the Makefile runs $s, which is missing or not executable"
done
[ "$n" -ge 5 ] || t_fail "found only $n scripts named in the Makefile"

t_begin licence_is_gpl2_or_later_and_named
head -3 "$SRCDIR/COPYING" | grep -q 'GNU GENERAL PUBLIC LICENSE' &&
	sed -n 2p "$SRCDIR/COPYING" | grep -q 'Version 2, June 1991' || t_fail "COPYING is not the GPL v2 text"
grep -q 'GPL-2.0-or-later' "$SRCDIR/README" || t_fail "README does not name the licence"
grep -q 'GPL-2.0-or-later' "$SRCDIR/configure.ac" || t_fail "configure.ac does not name the licence"

t_end
