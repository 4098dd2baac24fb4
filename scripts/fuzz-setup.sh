# Sourced by the fuzz stages (scripts/test.d/32-fuzz.sh, 50-service.sh) from the top of the
# tree: the build-fuzz folder they share (clang, ASan+UBSan, libFuzzer), set up on first use;
# sets b to it and makes UBSan stop at its first report.
b=build-fuzz
command -v clang >/dev/null || { echo "clang not installed"; exit 1; }
if [ ! -d "$b/meson-private" ]; then
    CC=clang meson setup "$b" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args=-fsanitize=fuzzer-no-link -Dbuildtype=debugoptimized >/dev/null
fi
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
