#!/usr/bin/env bash
# The GPU check in one command, for a bare machine with an NVIDIA GPU, the CUDA toolkit, meson
# and ninja, and no network (gpu/README.md): unpacks the carried .deb packages (.gpu-deps/, made
# by gpu/fetch-gpu-deps.sh) into a private prefix, builds with CUDA, runs the gpu and unit test
# suites (GPU output against the CPU cores), one short compute-sanitizer pass over the device
# test, bsgpu-bench twice (copies, each kernel, the bulk path with 1,000 sessions a call and their
# keys resident on the device among its rows, key search), and the daemon end to
# end with its CUDA backend (gpu/device-daemon.sh: openssl enc through it against in-process, byte
# for byte), writing the result table to $OUT/device-check.md (Markdown for bench/RESULTS.md).
#
# Nothing but the GPU build can stop it: the GPU targets build first and are fatal, everything
# else builds with -Dwerror=false and ninja -k 0, tests run with --no-rebuild, and each bench
# section runs as its own process with its own time limit (a failed one becomes an n/a row).
# Without a device the device steps report "skipped (no device)" and the check still passes
# (gpu/bare-machine.sh and scripts/test.d run it so). Designed for ~6 minutes on 16 cores.
#
# Environment: OUT (where the table and logs go; default $BSGPU_BUILD/device-check),
# BSGPU_BUILD (build directory, default build-device), BSGPU_PREFIX (where the packages are
# unpacked, default /tmp/bitslice-deps), BSGPU_BENCH_ARGS (extra bsgpu-bench arguments, e.g.
# "--bytes 268435456 --reps 5"), BSGPU_SUITES (test suites, default "gpu unit"),
# BSGPU_TEST_TIMEOUT (seconds for them, default 300).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
build=${BSGPU_BUILD:-build-device}
prefix=${BSGPU_PREFIX:-/tmp/bitslice-deps}
out=${OUT:-$top/$build/device-check}
jobs=$(nproc 2>/dev/null || echo 4)
t0=$SECONDS
status=0
summary=()

say() { echo "device-check: $*"; }
# step NAME SECONDS COMMAND...: runs with a time limit and records the result; rc 77 = skipped.
step() {
  local name=$1 limit=$2
  shift 2
  local s=$SECONDS
  say "== $name"
  timeout "$limit" "$@"
  local rc=$?
  local what="rc=$rc"
  [ "$rc" -eq 77 ] && what="skipped (no device)"
  [ "$rc" -eq 124 ] && what="timed out after $limit s"
  summary+=("$name: $what ($((SECONDS - s)) s)")
  [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || status=1
  return "$rc"
}
finish() {
  [ -f "$build/meson-logs/testlog.txt" ] && cp "$build/meson-logs/testlog.txt" "$out/"
  say "== summary ($((SECONDS - t0)) s)"
  printf '  %s\n' "${summary[@]}" | tee "$out/summary.txt"
  [ -f "$out/device-check.md" ] && cat "$out/device-check.md"
  exit "$status"
}

# Unpacks one .deb without dpkg where the image has none (ar archive holding data.tar.*; Python's
# tarfile reads the gz and xz that Debian's packages use).
unpack_deb() {
  if command -v dpkg-deb >/dev/null 2>&1; then
    dpkg-deb -x "$1" "$prefix"
    return
  fi
  python3 - "$1" "$prefix" <<'PY'
import io, sys, tarfile
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'!<arch>\n'
off = 8
while off < len(data):
    name = data[off:off + 16].decode().strip().rstrip('/')
    size = int(data[off + 48:off + 58].decode().strip())
    body = data[off + 60:off + 60 + size]
    if name.startswith('data.tar'):
        tarfile.open(fileobj=io.BytesIO(body)).extractall(sys.argv[2])
    off += 60 + size + (size & 1)
PY
}

rm -rf "$build"
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PATH="$PATH:/usr/local/cuda/bin"
if ls .gpu-deps/*.deb >/dev/null 2>&1; then
  rm -rf "$prefix"
  mkdir -p "$prefix"
  for f in .gpu-deps/*.deb; do
    unpack_deb "$f" || { say "cannot unpack $f"; exit 1; }
  done
  multi=x86_64-linux-gnu
  libdir="$prefix/usr/lib/$multi"
  # Only the carried packages' .pc files, with their paths moved under the prefix.
  export PKG_CONFIG_LIBDIR="$libdir/pkgconfig:$prefix/usr/share/pkgconfig"
  export PKG_CONFIG_SYSROOT_DIR="$prefix"
  # The .pc files name only usr/include; OpenSSL's opensslconf.h and configuration.h live in the
  # multiarch directory, which gcc searches by itself only under /usr.
  export CPATH="$prefix/usr/include/$multi:$prefix/usr/include${CPATH:+:$CPATH}"
  export LIBRARY_PATH="$libdir${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  [ -x "$prefix/usr/bin/pkgconf" ] && export PKG_CONFIG="$prefix/usr/bin/pkgconf"
  say "unpacked the packages of .gpu-deps into $prefix"
else
  say "no .gpu-deps/*.deb: using the machine's own libraries (see gpu/README.md)"
fi

if command -v meson >/dev/null 2>&1; then
  meson=(meson)
else
  meson=(python3 -m mesonbuild.mesonmain)
fi
# A CUDA image may carry ninja only as a Python package whose binary is not on PATH.
if ! command -v ninja >/dev/null 2>&1; then
  nbin=$(python3 -c 'import ninja; print(ninja.BIN_DIR)' 2>/dev/null) &&
    [ -x "$nbin/ninja" ] && export PATH="$PATH:$nbin" && say "ninja from Python: $nbin"
fi
{
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.max.sm,power.limit --format=csv 2>/dev/null ||
    echo "nvidia-smi: not available"
  command -v nvcc >/dev/null && nvcc --version | tail -1
  { cc --version | sed -n 1p; echo "meson $("${meson[@]}" --version)"; echo "ninja $(ninja --version)"; } 2>&1
} | tee "$out/gpu.txt"

step "configure" 120 "${meson[@]}" setup "$build" -Dcuda=enabled -Dwerror=false \
  --buildtype=release || finish
# The GPU targets first: only they may stop the check.
step "build (GPU targets)" 300 "${meson[@]}" compile -C "$build" -j "$jobs" bsgpu-bench \
  test_gpu_device bitslice-keysearch || { say "GPU build failed"; finish; }
if ! step "build (everything else, not fatal)" 300 ninja -C "$build" -j "$jobs" -k 0 \
  >"$out/build.log" 2>&1; then
  tail -30 "$out/build.log"
fi

# Static resource usage of every kernel (registers, spills, shared memory), demangled, while the
# tests run: the build's own nvcc commands (ninja -t commands), with --resource-usage and the
# output thrown away.
(
  cd "$build" || exit 0
  ninja -t commands 2>/dev/null | grep -E 'nvcc .* -c [^ ]*\.cu' | grep -v core_headers |
    sort -u | sed -E 's/ -o [^ ]+/ -o \/dev\/null/; s/ -MD -MF [^ ]+//' |
    while read -r cmd; do eval "$cmd --resource-usage" 2>&1; done |
    grep -E "Compiling entry|registers|spill" | sed 's/ptxas info *: //' |
    if command -v cu++filt >/dev/null; then cu++filt; else c++filt; fi >"$out/registers.txt"
) &
regs_pid=$!

suites=${BSGPU_SUITES:-gpu unit}
suite_args=()
for s in $suites; do suite_args+=(--suite "$s"); done
step "tests (${suites// /, })" "${BSGPU_TEST_TIMEOUT:-300}" "${meson[@]}" test -C "$build" \
  --no-rebuild "${suite_args[@]}" --print-errorlogs --num-processes "$jobs"
dev_test=$(find "$build" -name test_gpu_device -type f -perm -u+x | sed -n 1p)
sanitizer=$(command -v compute-sanitizer || true)
if [ -n "$sanitizer" ] && [ -n "$dev_test" ]; then
  # Quick mode: fewer and smaller batches, a 2^16 key search (memcheck is 10-100x slower).
  step "compute-sanitizer memcheck (device test, quick)" 120 env BSGPU_TEST_QUICK=1 \
    "$sanitizer" --tool memcheck --error-exitcode 3 "$dev_test"
else
  summary+=("compute-sanitizer: not available")
fi
wait "$regs_pid"

bench=$(find "$build" -name bsgpu-bench -type f -perm -u+x | sed -n 1p)
md="$out/device-check.md"
{
  echo "## GPU results, $(date -u '+%Y-%m-%d %H:%M UTC'), tree $(git describe --always --dirty 2>/dev/null || echo '(no git metadata here)')"
  echo
  sed 's/^/    /' "$out/gpu.txt"
  echo
} >"$md"
"$bench" --header >>"$md"
# Each section twice (two passes inside one process, two columns), each process on its own.
for section in copies kernels bulk keysearch; do
  # shellcheck disable=SC2086
  step "bench $section" 150 "$bench" --section "$section" --passes 2 --out "$md" \
    ${BSGPU_BENCH_ARGS:-}
  rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
    echo "| bench section $section failed (rc=$rc): see the log | | n/a | n/a | | | n/a | | | | |" >>"$md"
  fi
done
# The daemon end to end on the GPU: gpu/device-daemon.sh (skips without a device).
step "daemon on the GPU (openssl enc, seal, bench, STATUS)" 360 bash gpu/device-daemon.sh \
  "$build" "$out"
[ -f "$out/daemon.md" ] && { echo; echo "### bitsliced with backend=cuda"; echo; cat "$out/daemon.md"; } >>"$md"
{
  echo
  echo "Goals: issue 15. Model bounds: estimates from static SASS counts (gpu/README.md,"
  echo "\"Performance model\"), not measurements. Registers and warps/SM: cudaFuncGetAttributes and"
  echo "cudaOccupancyMaxActiveBlocksPerMultiprocessor on this device. ptxas, demangled:"
  echo
  sed 's/^/    /' "$out/registers.txt"
} >>"$md"
finish
