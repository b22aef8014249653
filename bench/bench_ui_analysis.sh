#!/usr/bin/env bash
# Keystroke-to-screen while the interface analyses files in the background
# (issue 20: the interface stays responsive during analysis). The typing
# and the figures are bench_ui.sh's, named ..._analysing_N.
#   bench/bench_ui_analysis.sh BUILDDIR [TRACKS]
BENCH_UI_ANALYSIS=1 exec bash "$(dirname "$0")/bench_ui.sh" "$@"
