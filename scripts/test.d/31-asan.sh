#!/usr/bin/env bash
# The provider and cli suites in an ASan+UBSan build (gcc). The C tests are instrumented
# themselves; the system openssl is not, so it gets libasan and libubsan through LD_PRELOAD
# to load the instrumented bitslice.so. Any sanitizer report fails the run.
set -euo pipefail
cd "${BS_TOP:-$(dirname "$0")/../..}"
b=build-prov-asan
if [ ! -d "$b/meson-private" ]; then
    CC=gcc meson setup "$b" -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C "$b" -j "$(nproc)" provider/bitslice.so tests/provider/test_provider \
    tests/provider/evp_gcm_vectors >/dev/null
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
BS_OPENSSL_WRAPPER="env LD_PRELOAD=$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
export BS_OPENSSL_WRAPPER
meson test -C "$b" --no-rebuild --suite provider --suite cli --num-processes "$(nproc)" \
    --print-errorlogs
