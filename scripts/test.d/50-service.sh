#!/usr/bin/env bash
# libFuzzer on the daemon's frame decoder (fuzz/fuzz_frame.c) for a bounded time: it
# needs clang and -Dfuzz=true, so it cannot run in the main build's `meson test`. Shares the
# build-fuzz folder (same setup line) with 32-fuzz.sh. $BS_FUZZ_SECONDS bounds the run (30).
set -euo pipefail
cd "${BS_TOP:-$(dirname "$0")/../..}"
. scripts/fuzz-setup.sh
ninja -C "$b" -j "$(nproc)" fuzz/fuzz_frame >/dev/null
mkdir -p "$b/fuzz/frame-corpus"
rc=0
"$b/fuzz/fuzz_frame" -max_total_time="${BS_FUZZ_SECONDS:-30}" -max_len=1024 \
    -print_final_stats=1 "$b/fuzz/frame-corpus" fuzz/frame-corpus >"$b/fuzz-frame.log" 2>&1 ||
    rc=$?
grep -E 'DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY|ERROR|Test unit written' \
    "$b/fuzz-frame.log" || true
[ "$rc" -eq 0 ] || tail -60 "$b/fuzz-frame.log"
exit "$rc"
