#!/usr/bin/env bash
# The provider, cli and service suites in an ASan+UBSan build (gcc). The C tests are instrumented
# themselves; the system openssl is not, so it gets libasan and libubsan through LD_PRELOAD
# to load the instrumented bitslice.so. Any sanitizer report fails the run.
set -euo pipefail
cd "${BS_TOP:-$(dirname "$0")/../..}"
b=build-prov-asan
if [ ! -d "$b/meson-private" ]; then
    CC=gcc meson setup "$b" -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized -Dcuda=disabled >/dev/null
fi
ninja -C "$b" -j "$(nproc)" >"$b/ninja.log" 2>&1 || { tail -40 "$b/ninja.log"; exit 1; }
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
BS_OPENSSL_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
BS_OPENSSL_WRAPPER="env LD_PRELOAD=$BS_OPENSSL_PRELOAD"
export BS_OPENSSL_WRAPPER BS_OPENSSL_PRELOAD
meson test -C "$b" --no-rebuild --suite provider --suite cli --suite service \
    --num-processes "$(nproc)" \
    --print-errorlogs
