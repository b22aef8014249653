#!/usr/bin/env bash
# tests/run-tests.sh itself, on build trees of its own made of small
# scripts standing in for unit test binaries: suites that pass, fail, are
# killed by a signal or hang past a kill; two trees in one queue; the
# summary counts every suite and names the ones that failed.
. "$(dirname "$0")/../lib.sh"

RUNNER=$SRCDIR/tests/run-tests.sh
A=$T_TMP/tree-a B=$T_TMP/tree-b-asan
mkdir -p "$A/tests" "$B/tests"
suite() { # TREE NAME BODY: an executable test_NAME in TREE/tests
	printf '#!/bin/sh\n%s\n' "$3" >"$1/tests/test_$2"
	chmod +x "$1/tests/test_$2"
}
for t in "$A" "$B"; do
	suite "$t" pass 'echo "ok      one"; echo "ok      two"; echo RESULT 2 0 0'
	suite "$t" slow 'sleep 1; echo "ok      slow"; echo RESULT 1 0 0'
done
# run TREE...: the runner on the trees, unit suites only (the shell suites
# are the real ones: this file would run itself); output in $OUT.
run() {
	OUT=$(TESTS_ONLY=unit TEST_JOBS=3 timeout 120 bash "$RUNNER" "$@" 2>&1)
	RC=$?
}

t_begin runner_counts_every_suite_of_two_trees
run "$A" "$B"
[ "$RC" -eq 0 ] || t_fail "exit $RC: $OUT"
[ "$(printf '%s\n' "$OUT" | tail -1)" = "6 passed, 0 failed, 0 skipped" ] || t_fail "summary: $(printf '%s\n' "$OUT" | tail -3)"
printf '%s\n' "$OUT" | grep -q "^$B: 3 passed, 0 failed, 0 skipped$" || t_fail "no line for the second tree: $OUT"
printf '%s\n' "$OUT" | grep -q "^== $A:test_slow " || t_fail "suites are not named by their tree: $OUT"
[ -f "$A/test-times.tsv" ] && [ -f "$B/test-times.tsv" ] || t_fail "times not kept per tree"

t_begin runner_survives_suites_killed_by_signals
# A suite killed by a signal made `wait -n` return without naming it: the
# runner stopped on an unset variable and printed no summary.
suite "$A" killed 'kill -9 $$'
# killed while it hangs, then (run again alone) passing at once
suite "$A" hangs "if [ -e '$T_TMP/hung' ]; then echo RESULT 1 0 0; else touch '$T_TMP/hung'; sleep 60; fi"
(sleep 2; pkill -f "$A/tests/test_hangs") &
killer=$!
run "$A"
wait "$killer"
[ "$RC" -ne 0 ] || t_fail "a killed suite did not fail the run"
last=$(printf '%s\n' "$OUT" | tail -1)
case $last in *" passed, "[1-9]*" failed, 0 skipped") ;; *) t_fail "no summary line: $(printf '%s\n' "$OUT" | tail -5)" ;; esac
printf '%s\n' "$OUT" | grep -q "failing suites:.*test_killed" || t_fail "the killed suite is not named: $OUT"
printf '%s\n' "$OUT" | grep -q "passed only when run alone.*test_hangs" || t_fail "the killed suite that passed alone is not named: $OUT"
printf '%s\n' "$OUT" | grep -q "unbound variable" && t_fail "the runner stopped: $OUT"
t_end
