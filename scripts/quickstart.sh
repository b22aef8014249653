#!/usr/bin/env bash
# Quick start: install what is missing, build, and start crate on the demo library.
# The demo gets its own database so your real library is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
[ -x configure ] || autoreconf -fi
[ -f config.mk ] || ./configure -q
make -j"$(nproc)"
data_dir=${XDG_DATA_HOME:-$HOME/.local/share}/crate
mkdir -p "$data_dir"
db="$data_dir/demo.db"
./build/crate --db "$db" scan --quiet data/demo || true   # reports unreadable files, if any
exec ./build/crate --db "$db"
