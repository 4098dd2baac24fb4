#!/usr/bin/env bash
# libFuzzer on the provider (fuzz/fuzz_provider.c) for a bounded time: clang, ASan+UBSan.
# $BS_FUZZ_SECONDS (default 60) bounds the run; the corpus is kept in the build folder.
set -euo pipefail
cd "${BS_TOP:-$(dirname "$0")/../..}"
b=build-fuzz
command -v clang >/dev/null || { echo "clang not installed"; exit 1; }
if [ ! -d "$b/meson-private" ]; then
    CC=clang meson setup "$b" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args=-fsanitize=fuzzer-no-link -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C "$b" -j "$(nproc)" fuzz/fuzz_provider >/dev/null ||
    { ninja -C "$b" -j 1 fuzz/fuzz_provider 2>&1 | tail -30; exit 1; }
mkdir -p "$b/fuzz-corpus"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
rc=0
"$b/fuzz/fuzz_provider" -max_total_time="${BS_FUZZ_SECONDS:-60}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$b/fuzz-corpus" >"$b/fuzz.log" 2>&1 || rc=$?
# A crash prints its report and leaves crash-* in the current folder; a clean run ends in DONE.
grep -E 'DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY|ERROR|Test unit written' "$b/fuzz.log" || true
[ "$rc" -eq 0 ] || tail -60 "$b/fuzz.log"
exit "$rc"
