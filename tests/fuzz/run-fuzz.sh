#!/usr/bin/env bash
# Builds every libFuzzer target (tests/fuzz/fuzz_*.c, with clang and
# -fsanitize=fuzzer,address,undefined, see tests/fuzz/fuzz.mk) and runs each
# for SECONDS, as many at once as there are cores.  Prints the executions per
# target and ends with "N passed, N failed, N skipped": a target passes when
# it ran its time without a crash; a crash fails it, and the crashing input is
# kept in tests/fuzz/build/crashes/<target>/ and printed.
#
#   tests/fuzz/run-fuzz.sh [SECONDS] [TARGET...]      (default 60 s, all targets)
#   tests/fuzz/run-fuzz.sh --build-only               (build them all, run none)
#
# A target named here or on the command line without its
# tests/fuzz/fuzz_<target>.c, a fuzz_*.c missing from ALL_TARGETS, and a
# target that does not build with the project's warnings all fail.
# Inputs found interesting are kept in tests/fuzz/build/corpus/<target>/
# between runs (gitignored); to turn a crash into a regression test copy it
# to tests/fuzz/regress/<target>/ (tests/unit/test_fuzz_regress.c replays it).
set -u
SECONDS_EACH=${1:-60}
shift || true
cd "$(dirname "$0")/../.."
SRCDIR=$PWD
B=tests/fuzz/build
SHARED=${CRATE_SHARED:-$SRCDIR/../shared}

# longest input worth trying: queries are typed, JSON documents are small,
# audio files need room for a header and a few frames
# snapshots of small indexes (tests/fuzz/seeds/snapshot) are 0.2-32 KB
declare -A MAXLEN=([parse]=2048 [json]=16384 [tags]=65536 [snapshot]=65536 [store]=16384 [cue]=8192
	[plfile]=8192 [text]=1024)
ALL_TARGETS=(parse json tags snapshot store cue plfile text)
# --build-only: build every target and stop (CI builds them while the
# test suites run, in time the processors would otherwise idle: .ci/run).
if [ "$SECONDS_EACH" = --build-only ]; then
	make -s -f tests/fuzz/fuzz.mk -j"$(nproc)" FUZZ_BUILD=$B lib &&
		make -s -f tests/fuzz/fuzz.mk -j"$(nproc)" FUZZ_BUILD=$B TARGETS="${ALL_TARGETS[*]}" all
	exit
fi
if [ $# -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi

passed=0 failed=0 skipped=0
if ! command -v clang >/dev/null; then
	echo "clang not found: cannot build the fuzzers"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

runnable=()
for t in "${TARGETS[@]}"; do
	if [ -f "tests/fuzz/fuzz_$t.c" ]; then
		runnable+=("$t")
	else
		echo "FAIL    fuzz_$t: no tests/fuzz/fuzz_$t.c"; failed=$((failed + 1))
	fi
done
for f in tests/fuzz/fuzz_*.c; do
	t=$(basename "$f" .c); t=${t#fuzz_}
	case " ${ALL_TARGETS[*]} " in *" $t "*) ;; *)
		echo "FAIL    fuzz_$t: not in run-fuzz.sh's ALL_TARGETS"; failed=$((failed + 1)) ;;
	esac
done

# ---- seeds: committed ones, regressions, and ones made from project data ----
make_seeds() { # target dir
	local t=$1 d=$2 i=0
	rm -rf "$d"; mkdir -p "$d"
	cp tests/fuzz/seeds/"$t"/* "$d"/ 2>/dev/null
	cp tests/fuzz/regress/"$t"/* "$d"/ 2>/dev/null
	case $t in
	parse)
		# every `code` span of the query spec, and the example block's queries
		for md in "$SHARED"/spec/*.md; do
			[ -f "$md" ] || continue
			grep -o '`[^`]*`' "$md" | sed 's/^`//; s/`$//' | while IFS= read -r q; do
				i=$((i + 1)); printf '%s' "$q" > "$d/spec-$(basename "$md" .md)-$i"
			done
		done
		if [ -f "$SHARED/spec/query-syntax.md" ]; then
			sed -n '/^## Examples/,$p' "$SHARED/spec/query-syntax.md" | grep -v '^```' |
				sed 's/   .*//' | while IFS= read -r q; do
				[ -n "$q" ] || continue
				i=$((i + 1)); printf '%s' "$q" > "$d/example-$i"
			done
		fi
		# the parser's own test table: first tab-separated column
		for tsv in tests/data/*.tsv tests/data/*/*.tsv; do
			[ -f "$tsv" ] || continue
			grep -v '^#' "$tsv" | cut -f1 | head -2000 | while IFS= read -r q; do
				i=$((i + 1)); printf '%s' "$q" > "$d/table-$i"
			done
		done ;;
	json)
		find tests/data -name '*.json' -size -64k 2>/dev/null | head -200 | while read -r f; do
			i=$((i + 1)); cp "$f" "$d/data-$i.json"
		done ;;
	store)
		# the JSON seeds as one collection each, after the active name
		for f in tests/fuzz/seeds/json/*; do
			i=$((i + 1)); { printf 'Default\0Seed\0'; cat "$f"; } >"$d/json-$i"
		done ;;
	tags)
		# small, varied files from the shared corpus (never committed here),
		# each prefixed with the byte that picks its extension in fuzz_tags.c
		local exts=(mp3 flac ogg m4a wav aif wv ape mpc opus wma spx tta oga mp4 aiff dsf webm mka xx)
		if [ -d "$SHARED/corpus" ]; then
			find "$SHARED/corpus" -type f -size -24k ! -name '*.md' ! -name '*.tsv' |
				sort | head -150 | while read -r f; do
				local ext=${f##*.} k=19 j
				for j in "${!exts[@]}"; do [ "${exts[$j]}" = "$ext" ] && k=$j; done
				{ printf "\\$(printf %03o "$k")"; cat "$f"; } >"$d/$(basename "$f")"
			done
		fi ;;
	esac
}

if [ ${#runnable[@]} -gt 0 ]; then
	echo "building fuzz targets: ${runnable[*]}"
	if ! make -s -f tests/fuzz/fuzz.mk -j"$(nproc)" FUZZ_BUILD=$B lib; then
		for t in "${runnable[@]}"; do echo "FAIL    fuzz_$t: the sources do not build (above)"; done
		failed=$((failed + ${#runnable[@]}))
		runnable=()
	fi
	still=()
	for t in "${runnable[@]}"; do
		if make -s -f tests/fuzz/fuzz.mk FUZZ_BUILD=$B TARGETS="$t" all; then
			still+=("$t")
		else
			echo "FAIL    fuzz_$t: does not build"
			failed=$((failed + 1))
		fi
	done
	runnable=("${still[@]}")
fi

export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$SRCDIR/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# fuzz_one TARGET: run one target for its time, its log in $B/TARGET.log and
# its exit status in $B/TARGET.rc.
fuzz_one() {
	local t=$1 seeds=$B/seeds/$1 corpus=$B/corpus/$1 crashes=$B/crashes/$1 dict=()
	[ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
	"$B/fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=2560 \
		-max_len="${MAXLEN[$t]:-65536}" -print_final_stats=1 -artifact_prefix="$crashes/" \
		"${dict[@]}" "$corpus" "$seeds" >"$B/$t.log" 2>&1
	echo $? >"$B/$t.rc"
}

# A fuzzer is one process on one core: as many run at once as there are cores.
cores=$(nproc 2>/dev/null || echo 1)
running=0
for t in "${runnable[@]}"; do
	make_seeds "$t" "$B/seeds/$t"
	mkdir -p "$B/corpus/$t" "$B/crashes/$t"
	rm -f "$B/$t.rc"
	echo "== fuzz_$t: $SECONDS_EACH s, $(ls "$B/seeds/$t" | wc -l) seeds, $(ls "$B/corpus/$t" | wc -l) kept inputs"
	if [ "$running" -ge "$cores" ]; then wait -n; running=$((running - 1)); fi
	fuzz_one "$t" &
	running=$((running + 1))
done
wait

for t in "${runnable[@]}"; do
	log=$B/$t.log crashes=$B/crashes/$t
	rc=$(cat "$B/$t.rc" 2>/dev/null || echo 1)
	execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
	cov=$(grep -aE '^#[0-9]+' "$log" | tail -1 | grep -o 'cov: [0-9]*')
	if [ "$rc" -eq 0 ]; then
		echo "ok      fuzz_$t: ${execs:-?} executions${cov:+, $cov}"
		passed=$((passed + 1))
	else
		artifact=$(grep -ao 'Test unit written to .*' "$log" | tail -1 | sed 's/Test unit written to //')
		echo "FAIL    fuzz_$t (exit $rc) after ${execs:-?} executions"
		{ grep -aE 'ERROR: |oracle:|SUMMARY|runtime error' "$log" | head -8
			grep -aE '^ *#[0-9]+ 0x.* (/[^ ]*)?(src|tests/fuzz)/' "$log" | head -10; } | sed 's/^/    /'
		if [ -n "$artifact" ] && [ -f "$artifact" ]; then
			echo "    crashing input ($(wc -c <"$artifact") bytes): $artifact"
			od -An -c "$artifact" | head -8 | sed 's/^/    /'
		else
			echo "    (no input saved; full log: $log)"
		fi
		failed=$((failed + 1))
	fi
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
