#!/usr/bin/env bash
# libFuzzer on the provider (fuzz/fuzz_provider.c) for a bounded time: clang, ASan+UBSan.
# $BS_FUZZ_SECONDS (default 60) bounds the run; the corpus is kept in the build folder.
set -euo pipefail
cd "${BS_TOP:-$(dirname "$0")/../..}"
. scripts/fuzz-setup.sh
ninja -C "$b" -j "$(nproc)" fuzz/fuzz_provider >/dev/null ||
    { ninja -C "$b" -j 1 fuzz/fuzz_provider 2>&1 | tail -30; exit 1; }
mkdir -p "$b/fuzz-corpus"
rc=0
"$b/fuzz/fuzz_provider" -max_total_time="${BS_FUZZ_SECONDS:-60}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$b/fuzz-corpus" >"$b/fuzz.log" 2>&1 || rc=$?
# A crash prints its report and leaves crash-* in the current folder; a clean run ends in DONE.
grep -E 'DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY|ERROR|Test unit written' "$b/fuzz.log" || true
[ "$rc" -eq 0 ] || tail -60 "$b/fuzz.log"
exit "$rc"
