#!/usr/bin/env bash
# crate rule ...: adding, listing, moving, removing rules through the real
# binary and database; persistence across runs; clear errors.
. "$(dirname "$0")/../lib.sh"

DB=$T_TMP/library.db
CFG=$T_TMP/config
printf '[eq.preset.mine]\nbands = -2,0,1,3,3,1,0,-1,-2,-3\npreamp = -3\n' >"$CFG"
cr() { "$CRATE" --db "$DB" --config "$CFG" "$@"; }

t_begin "rule add and list, in order"
cr rule add 'genre:Jazz' --eq vinyl --volume -3 --replaygain album 2>/dev/null || t_fail "add 1"
cr rule add --at 1 'year<1960' 'genre:Classical' --eq mine --no-pshuffle 2>/dev/null || t_fail "add 2"
out=$(cr rule list)
line1=$(printf '%s\n' "$out" | sed -n 1p)
line2=$(printf '%s\n' "$out" | sed -n 2p)
case $line1 in "1. query year<1960 genre:Classical -> eq=mine "*"pshuffle=no"*) ;; *) t_fail "line 1: $line1" ;; esac
case $line2 in "2. query genre:Jazz -> eq=vinyl volume=-3dB replaygain=album pshuffle=yes") ;; *) t_fail "line 2: $line2" ;; esac

t_begin "rule list --json"
json=$(cr rule list --json)
printf '%s\n' "$json" | grep -q '^{"position":2,"query":"genre:Jazz","eq":"vinyl","replaygain":"album","volume_db":-3,"pshuffle":true,"active":true}$' \
	|| t_fail "json: $json"

t_begin "rule move and remove persist"
cr rule move 2 1 || t_fail "move"
cr rule list | sed -n 1p | grep -q 'genre:Jazz' || t_fail "move did not persist"
cr rule remove 2 || t_fail "remove"
[ "$(cr rule list | wc -l)" -eq 1 ] || t_fail "remove did not persist"

t_begin "bad input is refused with a clear message"
err=$(cr rule add 'a:(' 2>&1); rc=$?
[ $rc -eq 1 ] || t_fail "bad query exit $rc"
case $err in *"col "*) ;; *) t_fail "no column in: $err" ;; esac
err=$(cr rule add 'genre:x' --eq nosuch 2>&1) && t_fail "unknown preset accepted"
case $err in *"'nosuch' is not defined"*vinyl*) ;; *) t_fail "preset message: $err" ;; esac
err=$(cr rule remove 9 2>&1) && t_fail "remove 9 accepted"
case $err in *"no rule 9 (1 rule)"*) ;; *) t_fail "remove message (one rule is 1 rule): $err" ;; esac
err=$(cr rule add 'genre:x' --volume 40 2>&1) && t_fail "volume 40 accepted"
[ "$(cr rule list | wc -l)" -eq 1 ] || t_fail "a refused add changed the list"

t_begin "bare words naming no collection are refused, --query takes them"
# A mistyped collection name once became a word-search rule without a word.
err=$(cr rule add 'Jazz Vinyl rip' 2>&1); rc=$?
[ $rc -eq 1 ] || t_fail "exit $rc"
case $err in *"'Jazz Vinyl rip' names no collection; use --query to mean a search"*) ;;
*) t_fail "message: $err" ;; esac
[ "$(cr rule list | wc -l)" -eq 1 ] || t_fail "a refused add changed the list"
cr rule add --query 'Jazz Vinyl rip' 2>/dev/null || t_fail "--query refused"
cr rule list | grep -q "^2. query Jazz Vinyl rip " || t_fail "not a query rule: $(cr rule list)"
err=$(cr rule add --query 'a:(' 2>&1) && t_fail "--query with a bad query accepted"
case $err in *"col "*) ;; *) t_fail "no column with --query: $err" ;; esac
cr rule remove 2 2>/dev/null || t_fail "remove"

t_begin "a preset gone from the config is reported, the rule stays"
cr rule add 'genre:Rock' --eq mine 2>/dev/null || t_fail "add"
: >"$CFG"
cr rule list | grep -q "no equalizer: equalizer preset 'mine' is not defined" || t_fail "$(cr rule list)"

t_begin "a rule on a saved collection follows rename; remove asks"
cr coll save 'Jazz Vinyl rips' 'genre:Jazz' 2>/dev/null || t_fail "coll save failed"
cr rule add 'Jazz Vinyl rips' --eq vinyl 2>/dev/null || t_fail "add by name"
cr rule list | grep -q '^3. collection Collections/Jazz Vinyl rips ' || t_fail "$(cr rule list)"
cr coll rename 'Jazz Vinyl rips' 'Vinyl' 2>/dev/null || t_fail "coll rename failed"
cr rule list | grep -q '^3. collection Collections/Vinyl ' || t_fail "rename did not follow: $(cr rule list)"
cr coll remove Vinyl 2>"$T_TMP/rm.err" && t_fail "removing a rule's collection was not refused"
grep -q 'rule 3' "$T_TMP/rm.err" || t_fail "refusal does not name the rule: $(cat "$T_TMP/rm.err")"
cr coll remove --force Vinyl 2>/dev/null || t_fail "coll remove --force failed"
cr rule list | grep -q 'Collections/Vinyl' && t_fail "--force left the rule: $(cr rule list)"

t_end
