#!/usr/bin/env bash
# distcheck.sh NAME: the release tarball stands on its own. Runs `make dist`,
# unpacks NAME.tar.gz in a temporary directory (no git, no autoconf run
# there), configures it with a distribution's kind of hardening flags,
# builds with -Werror and runs `make check-unit` in it. Each step is one
# test; ends with "N passed, N failed, N skipped" like tests/run-tests.sh.
# `make distcheck` runs it; about two minutes on two cores.
set -uo pipefail
cd "$(dirname "$0")/.."
name=$1
SRC=$PWD
# The corpus for the unit tests that use it, as run-tests.sh finds it.
export CRATE_SHARED=${CRATE_SHARED:-$SRC/../shared}
passed=0 failed=0
ok() { echo "ok      $1"; passed=$((passed + 1)); }
fail() { echo "FAIL    $1: $2"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed, 0 skipped"; [ "$failed" -eq 0 ]; exit; }
tmp=$(mktemp -d /tmp/crate-distcheck-XXXXXX)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT

if make -s dist >"$tmp/dist.log" 2>&1 && tar -xzf "$name.tar.gz" -C "$tmp"; then
	ok dist_tarball
else
	fail dist_tarball "$(tail -5 "$tmp/dist.log")"
	finish
fi
cd "$tmp/$name" || finish
if [ ! -e .git ] && [ ! -e config.mk ] && [ -f COPYING ] && [ -x configure ]; then
	ok dist_contents
else
	fail dist_contents "a .git or a config.mk, or no COPYING or configure"
fi

# The user's flags must reach every compile and link (Debian's kind of
# hardening); the project's own flags must stay.
export CPPFLAGS=-DCRATE_DISTCHECK_CPP CFLAGS='-O1 -fstack-protector-strong' LDFLAGS='-Wl,-z,now'
if ./configure -q >configure.log 2>&1 && nice -n 10 make -j2 WERROR=-Werror V=1 >build.log 2>&1; then
	ok dist_builds_with_werror
else
	fail dist_builds_with_werror "$(grep -m3 -E 'error|Error' configure.log build.log)"
	finish
fi
unset CPPFLAGS CFLAGS LDFLAGS
line=$(grep -E -- ' -c -o build/src/base/str\.o ' build.log)
bad=""
for f in -DCRATE_DISTCHECK_CPP -fstack-protector-strong -std=c11 -Wall -Werror -pthread; do
	grep -q -- " $f\b" <<<"$line" || bad="$bad $f"
done
# The user's -O1 comes after the project's -O2, so it is the one that counts.
grep -q -- '-O2 .* -O1' <<<"$line" || bad="$bad (-O1 after -O2)"
readelf -d build/crate-core 2>/dev/null | grep -q 'FLAGS.*NOW' || bad="$bad (crate-core not linked -z now)"
[ -z "$bad" ] && ok dist_user_flags_honoured || fail dist_user_flags_honoured "missing:$bad in: $line"

make -s check-unit >unit.log 2>&1
rc=$?
sed 's/^/  /' unit.log | grep -E '^  (FAIL|== .*)' | grep -B1 FAIL
sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed' unit.log | tail -1)
if [ $rc -eq 0 ] && [ -n "$sum" ]; then
	ok "dist_check_unit ($sum)"
else
	fail dist_check_unit "exit $rc, ${sum:-no summary}"
fi
finish
