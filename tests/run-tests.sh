#!/usr/bin/env bash
# Runs every test and prints one summary line "N passed, N failed, N skipped".
#   tests/run-tests.sh BUILDDIR [BUILDDIR...]   (TESTS_ONLY=unit|integration|ui to narrow)
#
# With several build trees (CI: build and build-asan) every suite runs once
# per tree, all in one queue, each named "TREE:suite": one tree's suites fill
# the time another's spend waiting, and the run ends with one summary line
# per tree before the total.
#
# Suites (a unit binary, or one shell script) run TEST_JOBS at a time
# (default: twice the number of cores: about half of the suites' time is
# waiting, for audio played at its real pace or a terminal to redraw, so
# one suite per core left the processors idle half the run), longest first: each suite's time is kept
# in BUILDDIR/test-times.tsv for the next run, so the long UI suites start
# at once instead of being the tail. A suite's output is printed whole when
# it ends. A suite that fails beside others is run once more alone, to tell
# a load-sensitive timing from a defect; the summary names it either way.
set -u
[ $# -gt 0 ] || set -- build
trees=("$@")
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
export SRCDIR CRATE_SRCDIR=$SRCDIR
export CORPUS=${CRATE_SHARED:-$SRCDIR/../shared}/corpus
cd "$SRCDIR"
export LSAN_OPTIONS="suppressions=$SRCDIR/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
passed=0 failed=0 skipped=0 failed_suites="" alone_suites=""
declare -A tree_passed=() tree_failed=() tree_skipped=()
jobs=${TEST_JOBS:-$((2 * $(nproc 2>/dev/null || echo 1)))}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
work=$(mktemp -d /tmp/crate-run-XXXXXX)
trap 'rm -rf "$work"' EXIT
# Files a suite makes that the same suite of the other tree can copy
# (t_shared_media in tests/lib.sh).
export CRATE_TEST_SHARED=$work/shared

if [ ! -f "$CORPUS/MANIFEST.tsv" ]; then
	echo "note: $CORPUS not found: corpus tests will be skipped (CI always has it)"
fi

# The suites: suites[i] (the suite's own name), tree[i] (its build tree),
# names[i] (what the output calls it) and the command that runs it, cmds[i]
# (words).
suites=() tree=() names=() cmds=()
only=${TESTS_ONLY:-all}
add_suite() { # TREE SUITE COMMAND
	suites+=("$2") tree+=("$1") cmds+=("$3")
	if [ ${#trees[@]} -gt 1 ]; then names+=("$1:$2"); else names+=("$2"); fi
}
for bt in "${trees[@]}"; do
	if [ "$only" = all ] || [ "$only" = unit ]; then
		for t in "$bt"/tests/test_*; do
			[ -x "$t" ] || continue
			add_suite "$bt" "$(basename "$t")" "${TEST_WRAPPER:-} $t"
		done
	fi
	for kind in integration ui; do
		if [ "$only" = all ] || [ "$only" = "$kind" ]; then
			for t in tests/$kind/*.sh; do
				[ -f "$t" ] || continue
				add_suite "$bt" "$kind/$(basename "$t" .sh)" "bash $t"
			done
		fi
	done
done

# Longest first: the tree's last run's seconds, else tests/suite-times.tsv
# (seconds measured once, normal and sanitizer build, so that a fresh clone
# starts its long suites first), else a guess by kind.
estimate() { # TREE SUITE
	local s kind=normal
	s=$(awk -F'\t' -v n="$2" '$1 == n { print $2; exit }' "$1/test-times.tsv" 2>/dev/null)
	if [ -n "$s" ]; then echo "$s"; return; fi
	case $1 in *asan*) kind=asan ;; esac
	s=$(awk -F'\t' -v n="$2" -v k="$kind" '$1 == n && $2 == k { print $3; exit }' tests/suite-times.tsv 2>/dev/null)
	if [ -n "$s" ]; then echo "$s"; return; fi
	case $2 in ui/*) echo 120 ;; integration/*) echo 60 ;; *) echo 10 ;; esac
}
order=$(for i in "${!names[@]}"; do echo "$(estimate "${tree[$i]}" "${suites[$i]}") $i"; done |
	sort -k1,1nr -k2,2n | awk '{ print $2 }')

# report INDEX SECONDS RC: print a finished suite and count its results.
# Returns 1 when the suite failed.
report() {
	local i=$1 secs=$2 rc=$3 name=${names[$1]}
	echo "== $name (${secs}s)"
	sed 's/^/  /' "$work/$i.err"
	grep -v '^RESULT ' "$work/$i.out" | sed 's/^/  /'
	local res
	res=$(grep '^RESULT ' "$work/$i.out" | tail -1)
	if [ -z "$res" ]; then
		echo "  FAIL    $name (suite crashed or printed no result, exit $rc)"
		return 1
	fi
	set -- $res
	[ "$3" -eq 0 ]
}

count() { # INDEX: add a suite's RESULT line to the totals
	local res bt=${tree[$1]}
	res=$(grep '^RESULT ' "$work/$1.out" | tail -1)
	if [ -z "$res" ]; then
		failed=$((failed + 1)); tree_failed[$bt]=$((${tree_failed[$bt]:-0} + 1))
		return
	fi
	set -- $res
	passed=$((passed + $2)); failed=$((failed + $3)); skipped=$((skipped + $4))
	tree_passed[$bt]=$((${tree_passed[$bt]:-0} + $2))
	tree_failed[$bt]=$((${tree_failed[$bt]:-0} + $3))
	tree_skipped[$bt]=$((${tree_skipped[$bt]:-0} + $4))
}

start_suite() { # INDEX
	local i=$1 bt=${tree[$1]}
	date +%s >"$work/$i.start"
	# shellcheck disable=SC2086 # cmds holds words on purpose
	BUILDDIR=$bt CRATE="$SRCDIR/$bt/crate" ${cmds[$i]} >"$work/$i.out" 2>"$work/$i.err" &
	pid_of[$!]=$i
}

declare -A pid_of=()
retry=()
finish() { # PID RC
	local i=${pid_of[$1]} rc=$2
	unset "pid_of[$1]"
	local secs=$(($(date +%s) - $(cat "$work/$i.start")))
	printf '%s\t%s\n' "${suites[$i]}" "$secs" >>"$work/times.${tree[$i]//\//_}"
	if report "$i" "$secs" "$rc"; then
		count "$i"
	elif [ "$jobs" -gt 1 ]; then
		echo "  (${names[$i]} failed beside other suites: it runs again alone at the end)"
		retry+=("$i")
	else
		count "$i"; failed_suites="$failed_suites ${names[$i]}"
	fi
}

# Wait for a suite to end and finish it. `wait -n` can return without
# naming a job (a signal interrupted it, or the job was reaped already):
# then every suite whose process is gone is finished with the status its
# own wait gives, so the run neither stops on an unset name nor waits forever.
reap_one() {
	local done_pid="" rc p
	wait -n -p done_pid; rc=$?
	if [ -n "${done_pid:-}" ] && [ -n "${pid_of[$done_pid]+set}" ]; then
		finish "$done_pid" "$rc"
		return
	fi
	for p in "${!pid_of[@]}"; do
		if ! kill -0 "$p" 2>/dev/null; then
			wait "$p"; finish "$p" $?
		fi
	done
}

for i in $order; do
	while [ "${#pid_of[@]}" -ge "$jobs" ]; do reap_one; done
	start_suite "$i"
done
while [ "${#pid_of[@]}" -gt 0 ]; do reap_one; done

for i in "${retry[@]}"; do
	echo "== ${names[$i]}: again, alone"
	start_suite "$i"
	wait "$!"; rc=$?
	unset "pid_of[$!]"
	if report "$i" "$(($(date +%s) - $(cat "$work/$i.start")))" "$rc"; then
		alone_suites="$alone_suites ${names[$i]}"
	else
		failed_suites="$failed_suites ${names[$i]}"
	fi
	count "$i"
done

# Keep each tree's times for its next run's order (suites not run this time stay).
for bt in "${trees[@]}"; do
	times_file=$bt/test-times.tsv new=$work/times.${bt//\//_}
	[ -d "$bt" ] && [ -f "$new" ] || continue
	{ cat "$new"; [ -f "$times_file" ] && cat "$times_file"; } |
		awk -F'\t' '!seen[$1]++' >"$new.all" && mv "$new.all" "$times_file"
done

[ -z "$alone_suites" ] || echo "passed only when run alone (timing under load):$alone_suites"
[ -z "$failed_suites" ] || echo "failing suites:$failed_suites"
if [ ${#trees[@]} -gt 1 ]; then
	for bt in "${trees[@]}"; do
		echo "$bt: ${tree_passed[$bt]:-0} passed, ${tree_failed[$bt]:-0} failed, ${tree_skipped[$bt]:-0} skipped"
	done
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
