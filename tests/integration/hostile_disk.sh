#!/usr/bin/env bash
# A full disk and read-only places. A write that fails for lack of space is
# reported (never a crash) and nothing already saved is lost; a read-only
# configuration or data directory, or a read-only database, gives a clear
# message or read-only access.
#
# Needs root to mount small tmpfs file systems (CI runs as root); elsewhere
# the full-disk test is skipped and read-only cases use chmod.
. "$(dirname "$0")/../lib.sh"

MNT=()
cleanup() {
	local m
	for m in "${MNT[@]}"; do umount "$m" 2>/dev/null; done
	chmod -R u+w "$T_TMP" 2>/dev/null
	rm -rf "$T_TMP"
}
trap cleanup EXIT

mount_tmpfs() { # dir size [ro]
	mkdir -p "$1"
	[ "$(id -u)" -eq 0 ] || return 1
	mount -t tmpfs -o "size=$2" tmpfs "$1" 2>/dev/null || return 1
	MNT+=("$1")
}

D=$T_TMP/music
BIG=$T_TMP/big
mkdir -p "$D" "$BIG"

t_begin hostile_disk_setup
if ! command -v ffmpeg >/dev/null || ! command -v sqlite3 >/dev/null; then
	t_skip "needs ffmpeg and sqlite3"; t_end; exit $?
fi
for i in 1 2 3; do
	ffmpeg -v error -y -f lavfi -i "sine=frequency=$((300 * i)):duration=0.2:sample_rate=22050" -ac 1 \
		-metadata title="Kept $i" -metadata artist="Saved Artist" "$D/k$i.flac" || t_fail "ffmpeg failed"
done
# many files with long tags, to fill a small disk with database rows
comment=$(printf 'c%.0s' $(seq 1 3000))
ffmpeg -v error -y -f lavfi -i "sine=frequency=900:duration=0.2:sample_rate=22050" -ac 1 \
	-metadata title="Filler" -metadata comment="$comment" -metadata lyrics="$comment$comment" \
	"$T_TMP/filler.flac" || t_fail "ffmpeg failed"
t_copies "$T_TMP/filler.flac" 600 "$BIG/f%d.flac"

t_begin hostile_disk_full
FULL=$T_TMP/small # (not "full": messages are grepped for that word)
if ! mount_tmpfs "$FULL" 1m; then
	t_skip "cannot mount a 1 MB tmpfs (needs root)"
else
	DB=$FULL/lib.db
	"$CRATE" --db "$DB" scan --quiet "$D" >"$T_TMP/out" 2>&1 || t_fail "the first scan failed: $(head -3 "$T_TMP/out")"
	saved_coll=""
	if "$CRATE" --help 2>&1 | grep -q '^  coll save '; then
		"$CRATE" --db "$DB" coll save Before 'a:"Saved Artist"' >/dev/null 2>&1 && saved_coll=Before
	fi
	"$CRATE" --db "$DB" list --format '%title%' | sort >"$T_TMP/before"
	# take most of what is left, then scan more than fits
	dd if=/dev/zero of="$FULL/ballast" bs=4k count=150 status=none 2>/dev/null
	"$CRATE" --db "$DB" scan --quiet "$BIG" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	echo "    scan on the full disk: exit $rc: $(grep -iE 'full|space' "$T_TMP/err" | head -1)" >&2
	if [ $rc -ge 128 ]; then
		t_fail "crate scan crashed on a full disk (exit $rc)"
	elif [ $rc -eq 0 ]; then
		n=$("$CRATE" --db "$DB" list --format '%url%' 2>/dev/null | wc -l)
		[ "$n" -eq 603 ] || t_fail "crate scan said all was well on a full disk, but $n of 603 items are listed"
	elif ! grep -qiE 'full|space|disk' "$T_TMP/err"; then
		t_fail "the scan failed (exit $rc) without saying the disk is full: $(head -3 "$T_TMP/err")"
	fi
	"$CRATE" --db "$DB" list --format '%title%' >"$T_TMP/after.all" 2>"$T_TMP/err" ||
		t_fail "crate list fails on the full disk: $(head -2 "$T_TMP/err")"
	grep 'Kept' "$T_TMP/after.all" | sort >"$T_TMP/after"
	cmp -s "$T_TMP/before" "$T_TMP/after" || t_fail "items saved before the disk filled up are gone"
	if [ -n "$saved_coll" ]; then
		"$CRATE" --db "$DB" coll list 2>/dev/null | grep -q "$saved_coll" ||
			t_fail "the collection saved before the disk filled up is gone"
		# a save that cannot be written is reported, and the old one stays
		"$CRATE" --db "$DB" coll save "$(printf 'N%.0s' $(seq 1 200))" "t:$(printf 'q%.0s' $(seq 1 200000))" \
			>/dev/null 2>"$T_TMP/err"
		rc=$?
		[ $rc -lt 128 ] || t_fail "coll save crashed on a full disk (exit $rc)"
	fi
	rm -f "$FULL/ballast"
	[ "$(t_integrity "$DB")" = ok ] || t_fail "integrity_check after the full disk: $(t_integrity "$DB")"
	"$CRATE" --db "$DB" scan --quiet "$D" >"$T_TMP/out" 2>&1 ||
		t_fail "a scan with space again failed: $(head -3 "$T_TMP/out")"
fi

# Output that cannot be written (stdout on a full disk: /dev/full) is an
# error, exit 1 with the reason, never a silent success with a cut file.
t_begin hostile_disk_output_that_cannot_be_written_exits_1
if [ ! -w /dev/full ]; then
	t_skip "needs /dev/full"
else
	DB=$T_TMP/out.db
	"$CRATE" --db "$DB" --config /dev/null scan --quiet "$D" >/dev/null 2>&1 || t_fail "scan failed"
	"$CRATE" --db "$DB" --config /dev/null playlist add Default '*' >/dev/null 2>&1
	for cmd in "list" "list --json" "search Kept" "search --json Kept" "info 1" "info --json 1" \
		"playlist list" "playlist export Default" "coll list" "coll export Playlists/Default" \
		"parse a:x" "help" "--version" "--help"; do
		# shellcheck disable=SC2086 # the words of a case are its arguments
		"$CRATE" --db "$DB" --config /dev/null $cmd >/dev/full 2>"$T_TMP/err"
		rc=$?
		[ $rc -eq 1 ] || t_fail "crate $cmd >/dev/full: exit $rc, expected 1"
		grep -q 'cannot write the output' "$T_TMP/err" || t_fail "crate $cmd >/dev/full said: $(head -2 "$T_TMP/err")"
	done
fi

t_begin hostile_disk_readonly_config_dir
RO=$T_TMP/ro
mkdir -p "$RO"
mkdir -p "$RO/config/crate" "$RO/data"
printf '[output]\ndevice = null\n' >"$RO/config/crate/config"
if mount_tmpfs "$RO/m" 1m; then
	mkdir -p "$RO/m/config/crate" "$RO/m/data"
	cp "$RO/config/crate/config" "$RO/m/config/crate/config"
	# a database with items, in WAL mode and checkpointed, then the mount goes read-only
	"$CRATE" --db "$RO/m/data/lib.db" scan --quiet "$D" >/dev/null 2>&1
	sqlite3 "$RO/m/data/lib.db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	rm -f "$RO/m/data/lib.db-wal" "$RO/m/data/lib.db-shm"
	mount -o remount,ro "$RO/m" || t_fail "cannot remount read-only"
	BASE=$RO/m
else
	# not root: permissions do the job
	"$CRATE" --db "$RO/data/lib.db" scan --quiet "$D" >/dev/null 2>&1
	sqlite3 "$RO/data/lib.db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	rm -f "$RO/data/lib.db-wal" "$RO/data/lib.db-shm"
	chmod -R a-w "$RO/config" "$RO/data"
	BASE=$RO
fi
sum_before=$(cksum <"$BASE/data/lib.db")
# configuration in a read-only directory: read, never needs writing
XDG_CONFIG_HOME=$BASE/config "$CRATE" --db "$T_TMP/rw.db" scan --quiet "$D" >"$T_TMP/out" 2>&1 ||
	t_fail "crate fails with a read-only config dir: $(head -2 "$T_TMP/out")"

t_begin hostile_disk_readonly_data_dir
# no --db: the default database would go in a read-only data directory
mkdir -p "$T_TMP/home"
HOME=$T_TMP/home XDG_DATA_HOME=$BASE/data/new XDG_CONFIG_HOME=$BASE/config "$CRATE" list >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
if [ $rc -ge 128 ]; then
	t_fail "crate list crashed with a read-only data dir (exit $rc)"
elif [ $rc -ne 0 ] && ! grep -qiE 'read-only|permission|cannot|denied' "$T_TMP/err"; then
	t_fail "crate list failed (exit $rc) with an unclear message: $(head -2 "$T_TMP/err")"
fi

t_begin hostile_disk_readonly_database
"$CRATE" --db "$BASE/data/lib.db" list --format '%title%' >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
if [ $rc -eq 0 ]; then
	grep -q 'Kept 2' "$T_TMP/out" || t_fail "crate list on a read-only database misses items"
elif [ $rc -ge 128 ] || ! grep -qiE 'read-only|readonly|permission|cannot' "$T_TMP/err"; then
	t_fail "crate list on a read-only database: exit $rc, $(head -2 "$T_TMP/err")"
fi
"$CRATE" --db "$BASE/data/lib.db" scan --quiet "$D" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
if [ $rc -ge 128 ]; then
	t_fail "crate scan crashed on a read-only database (exit $rc)"
elif [ $rc -eq 0 ]; then
	t_fail "crate scan claims success on a read-only database"
elif ! grep -qiE 'read-only|readonly|permission' "$T_TMP/err"; then
	t_fail "crate scan on a read-only database: unclear message: $(head -2 "$T_TMP/err")"
fi
[ "$(cksum <"$BASE/data/lib.db")" = "$sum_before" ] || t_fail "the read-only database changed"

t_end
