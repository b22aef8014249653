#!/usr/bin/env bash
# make-dist.sh NAME: write NAME.tar.gz, the source release: every file git
# tracks (as it is in the work tree; dot-files such as .ci/ left out) under
# NAME/, plus configure and aclocal.m4 so that building it needs no
# autoconf. One mtime for every file (the last commit's) and gzip -n: the
# same tree gives the same tarball. `make dist` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "make dist: needs a git checkout (the tarball is the tracked files)" >&2
	exit 1
fi
[ -x configure ] && [ -f aclocal.m4 ] || autoreconf -fi
list=$(mktemp)
trap 'rm -f "$list" "$name.tar.gz.tmp"' EXIT
{ git ls-files -z | tr '\0' '\n' | grep -v '^\.' | while IFS= read -r f; do
	[ -f "$f" ] && printf '%s\0' "$f" # a tracked file deleted in the work tree is left out
done; printf '%s\0' configure aclocal.m4; } | LC_ALL=C sort -z >"$list"
tar --null -T "$list" --transform "s,^,$name/," --sort=name --owner=0 --group=0 --numeric-owner \
	--mtime="@$(git log -1 --format=%ct)" -cf - | gzip -n -9 >"$name.tar.gz.tmp"
mv "$name.tar.gz.tmp" "$name.tar.gz"
echo "$name.tar.gz: $(tar -tzf "$name.tar.gz" | grep -vc '/$') files, $(du -k "$name.tar.gz" | cut -f1) KB"
