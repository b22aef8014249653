#!/usr/bin/env bash
# demo.sh [CRATE]: start crate (default build/crate) on the twelve-track demo
# library in data/demo/, scanned into its own database
# ($XDG_DATA_HOME/crate/demo.db) so that your real library is never touched.
# `make demo` and scripts/quickstart.sh run it.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
crate=${1:-$src/build/crate}
data_dir=${XDG_DATA_HOME:-$HOME/.local/share}/crate
mkdir -p "$data_dir"
db="$data_dir/demo.db"
"$crate" --db "$db" scan --quiet "$src/data/demo" || true   # reports unreadable files, if any
exec "$crate" --db "$db"
