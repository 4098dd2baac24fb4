#!/usr/bin/env bash
# The provider and cli suites under valgrind memcheck (the 'valgrind' test setup of
# tests/provider/meson.build): the C tests run under valgrind, and so does every openssl that
# the cli checks start. The setup runs a subset of the sizes (see tests/cli/cli.sh).
# $BS_BUILD_DIR (default build, the main build of scripts/test.sh) names the build folder.
set -euo pipefail
cd "${BS_TOP:-$(dirname "$0")/../..}"
b=${BS_BUILD_DIR:-build}
command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 1; }
[ -d "$b/meson-private" ] || meson setup "$b" >/dev/null
ninja -C "$b" -j "$(nproc)" provider/bitslice.so tests/provider/test_provider \
    tests/provider/evp_gcm_vectors tests/cli/fetch_names >/dev/null
meson test -C "$b" --no-rebuild --setup=valgrind --suite provider --suite cli \
    --num-processes "$(nproc)" --print-errorlogs
