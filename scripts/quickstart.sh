#!/usr/bin/env bash
# Quick start: install what is missing, build, and start crate on the demo library.
# The demo gets its own database so your real library is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
[ -x configure ] || autoreconf -fi
[ -f config.mk ] || ./configure -q
make -j"$(nproc)"
exec scripts/demo.sh build/crate
