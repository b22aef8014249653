# Shell test helpers: source this, call t_begin NAME, then t_pass / t_fail MSG / t_skip MSG,
# and t_end at the end of the script. Output matches the C harness, so
# tests/run-tests.sh counts shell and C tests the same way.
#
# Environment given by run-tests.sh: CRATE (the binary), SRCDIR, CORPUS (may
# not exist), BUILDDIR.

T_PASSED=0; T_FAILED=0; T_SKIPPED=0; T_NAME=""; T_STATE=""
: "${SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${BUILDDIR:=build}"
: "${CRATE:=$SRCDIR/$BUILDDIR/crate}"
: "${CORPUS:=${CRATE_SHARED:-$SRCDIR/../shared}/corpus}"
# crash_rounds N: how many kill rounds a crash suite runs (CRASH_ROUNDS
# overrides). The sanitizer tree runs about a third: it looks for memory
# errors on the same paths at two to three times the CPU a round; the kill
# timings are the normal tree's to vary (CI runs both).
crash_rounds() {
	local n=$1
	case $BUILDDIR in *asan*) n=$(((n + 2) / 3)) ;; esac
	echo "${CRASH_ROUNDS:-$n}"
}
T_TMP=$(mktemp -d /tmp/crate-sh-XXXXXX)
trap 'rm -rf "$T_TMP"' EXIT

t_begin() { t_finish_current; T_NAME=$1; T_STATE=pass; T_START=${EPOCHREALTIME/[.,]/}; }
t_fail() { echo "    $T_NAME: $*" >&2; T_STATE=fail; }
t_skip() { echo "    skipped: $*" >&2; T_STATE=skip; }
# A test that took 2 s or more says how long, to show where a suite's time goes.
t_took() {
	local us=$(( ${EPOCHREALTIME/[.,]/} - T_START ))
	[ "$us" -lt 2000000 ] || printf ' (%d.%d s)' $((us / 1000000)) $((us / 100000 % 10))
}
t_finish_current() {
	[ -n "$T_NAME" ] || return 0
	case $T_STATE in
	pass) echo "ok      $T_NAME$(t_took)"; T_PASSED=$((T_PASSED + 1)) ;;
	skip) echo "skip    $T_NAME$(t_took)"; T_SKIPPED=$((T_SKIPPED + 1)) ;;
	*) echo "FAIL    $T_NAME$(t_took)"; T_FAILED=$((T_FAILED + 1)) ;;
	esac
	T_NAME=""
}
t_end() { t_finish_current; echo "RESULT $T_PASSED $T_FAILED $T_SKIPPED"; [ "$T_FAILED" -eq 0 ]; }

# t_check DESCRIPTION COMMAND... : fail the current test when the command fails.
t_check() { local d=$1; shift; if ! "$@"; then t_fail "$d"; fi; }
t_have_corpus() { [ -f "$CORPUS/MANIFEST.tsv" ]; }

# t_copies FILE N PATTERN: N copies of FILE, named by PATTERN (a printf
# format given the numbers 1..N, e.g. "$D/f%d.flac"), written by a few tee
# processes: a cp per file costs a process each, which is most of a
# minute for 6,000 files on a slow machine.
t_copies() {
	# shellcheck disable=SC2059 # the pattern is the format
	printf "$3\n" $(seq 1 "$2") |
		xargs -d '\n' -n 400 sh -c 'exec tee -- "$@" <"$0" >/dev/null' "$1"
}

# t_shared_media KEY DIR COMMAND...: fill DIR with what COMMAND makes in it,
# or with a copy of what it made for the same suite of the other build
# tree: tests/run-tests.sh runs every script once per tree, and synthesised
# audio (FFmpeg evaluating an expression per sample) is the same for both
# and seconds of processor time. The runner's CRATE_TEST_SHARED (removed
# when the run ends) holds the copies, one KEY at a time under a lock, so
# the second suite waits for the first one's files rather than making
# them again. Without it, or when COMMAND fails, COMMAND's files stay
# unshared. COMMAND runs in this shell (its t_fail counts).
t_shared_media() {
	local key=$1 dir=$2 base=${CRATE_TEST_SHARED:-}
	shift 2
	if [ -z "$base" ] || ! command -v flock >/dev/null || ! mkdir -p "$base"; then
		"$@"
		return
	fi
	local rc=0 lock
	exec {lock}>"$base/$key.lock"
	flock "$lock"
	if [ -d "$base/$key" ]; then
		cp -a "$base/$key/." "$dir/" || rc=1
	else
		"$@" || rc=$?
		if [ "$rc" -eq 0 ] && [ "$T_STATE" != fail ]; then
			rm -rf "$base/$key.tmp"
			cp -a "$dir/." "$base/$key.tmp" && mv "$base/$key.tmp" "$base/$key"
		fi
	fi
	exec {lock}>&-
	return "$rc"
}

# t_sink_home DIR [OUT]: make DIR a home whose ALSA default device is the
# file plugin, writing raw samples to OUT (default DIR/out.raw): what crate
# plays can then be compared with FFmpeg's decoding.
t_sink_home() {
	mkdir -p "$1"
	printf 'pcm.!default { type file; slave.pcm "null"; file "%s"; format "raw" }\n' \
		"${2:-$1/out.raw}" >"$1/.asoundrc"
}

# t_integrity DB: SQLite's integrity_check of DB, on one line ("ok" when sound).
t_integrity() {
	sqlite3 -cmd ".timeout 5000" "$1" 'PRAGMA integrity_check' 2>&1 | head -3 | tr '\n' ' ' | sed 's/ $//'
}
