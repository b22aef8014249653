#!/usr/bin/env bash
# Runs every test and prints one summary line "N passed, N failed, N skipped".
#   tests/run-tests.sh BUILDDIR      (TESTS_ONLY=unit|integration|ui to narrow)
set -u
BUILDDIR=${1:-build}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
export SRCDIR BUILDDIR CRATE_SRCDIR=$SRCDIR CRATE="$SRCDIR/$BUILDDIR/crate"
export CORPUS=${CRATE_SHARED:-$SRCDIR/../shared}/corpus
cd "$SRCDIR"
export LSAN_OPTIONS="suppressions=$SRCDIR/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
passed=0 failed=0 skipped=0 failed_suites=""

if [ ! -f "$CORPUS/MANIFEST.tsv" ]; then
	echo "note: $CORPUS not found: corpus tests will be skipped (CI always has it)"
fi

run_suite() { # name, command...
	local name=$1; shift
	echo "== $name"
	local out rc
	out=$("$@" 2> >(sed 's/^/  /' >&2))
	rc=$?
	printf '%s\n' "$out" | grep -v '^RESULT ' | sed 's/^/  /'
	local res
	res=$(printf '%s\n' "$out" | grep '^RESULT ' | tail -1)
	if [ -z "$res" ]; then
		echo "  FAIL    $name (suite crashed or printed no result, exit $rc)"
		failed=$((failed + 1)); failed_suites="$failed_suites $name"
		return
	fi
	set -- $res
	passed=$((passed + $2)); failed=$((failed + $3)); skipped=$((skipped + $4))
	[ "$3" -eq 0 ] || failed_suites="$failed_suites $name"
}

only=${TESTS_ONLY:-all}
if [ "$only" = all ] || [ "$only" = unit ]; then
	for t in "$BUILDDIR"/tests/test_*; do
		[ -x "$t" ] || continue
		run_suite "$(basename "$t")" ${TEST_WRAPPER:-} "$t"
	done
fi
for kind in integration ui; do
	if [ "$only" = all ] || [ "$only" = "$kind" ]; then
		for t in tests/$kind/*.sh; do
			[ -f "$t" ] || continue
			run_suite "$kind/$(basename "$t" .sh)" bash "$t"
		done
	fi
done

[ -z "$failed_suites" ] || echo "failing suites:$failed_suites"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
