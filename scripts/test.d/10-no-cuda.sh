#!/usr/bin/env bash
# The build without CUDA (as on a machine without nvcc): it must configure, build and pass the
# unit and gpu suites (the gpu suite's host tests do not need nvcc).
set -euo pipefail
cd "${BS_TOP:-$(dirname "$0")/../..}"
b=build-nocuda
if [ ! -d "$b/meson-private" ]; then
    meson setup "$b" -Dcuda=disabled >/dev/null
fi
ninja -C "$b" -j "$(nproc)" >/dev/null || { ninja -C "$b" -j 1 2>&1 | tail -40; exit 1; }
if grep -q 'nvcc' "$b/build.ninja"; then
    echo "nvcc is used although -Dcuda=disabled"
    exit 1
fi
meson test -C "$b" --suite unit --suite gpu --print-errorlogs
