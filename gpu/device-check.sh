#!/usr/bin/env bash
# The GPU check in one command, for a bare machine with an NVIDIA GPU, the CUDA toolkit, meson
# and ninja, and no network (gpu/README.md): unpacks the carried .deb packages (.gpu-deps/, made
# by gpu/fetch-gpu-deps.sh) into a private prefix, builds with CUDA, runs the gpu and unit test
# suites (GPU output against the CPU cores), prints the kernels' register use, and runs
# bsgpu-bench (copy bandwidth, each kernel, the bulk path, key search) as one table, which also
# goes to $OUT/device-check.md when OUT is set. Designed to finish within 8 minutes.
#
# Environment: BSGPU_BUILD (build directory, default build-device), BSGPU_PREFIX (where the
# packages are unpacked, default /tmp/bitslice-deps), BSGPU_BENCH_ARGS (extra bsgpu-bench
# arguments, e.g. "--bytes 268435456" for a quicker run).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
build=${BSGPU_BUILD:-build-device}
prefix=${BSGPU_PREFIX:-/tmp/bitslice-deps}
out=${OUT:-}
jobs=$(nproc 2>/dev/null || echo 4)
t0=$SECONDS
status=0
summary=()

say() { echo "device-check: $*"; }
step() { # name seconds command...: runs with a time limit, records the result
  local name=$1 limit=$2
  shift 2
  local s=$SECONDS
  say "== $name"
  timeout "$limit" "$@"
  local rc=$?
  summary+=("$name: rc=$rc ($((SECONDS - s)) s)")
  [ "$rc" -eq 0 ] || status=1
  return "$rc"
}

# Unpacks one .deb without dpkg where the image has none (ar archive holding data.tar.*).
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

export PATH="$PATH:/usr/local/cuda/bin"
if ls .gpu-deps/*.deb >/dev/null 2>&1; then
  rm -rf "$prefix"
  mkdir -p "$prefix"
  for f in .gpu-deps/*.deb; do
    unpack_deb "$f" || { say "cannot unpack $f"; exit 1; }
  done
  libdir="$prefix/usr/lib/x86_64-linux-gnu"
  # Only the carried packages' .pc files, with their paths moved under the prefix.
  export PKG_CONFIG_LIBDIR="$libdir/pkgconfig:$prefix/usr/share/pkgconfig"
  export PKG_CONFIG_SYSROOT_DIR="$prefix"
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
nvidia-smi -L 2>/dev/null || say "nvidia-smi: not available"
command -v nvcc >/dev/null && nvcc --version | tail -1

rm -rf "$build"
step "configure" 120 "${meson[@]}" setup "$build" -Dcuda=enabled --buildtype=release ||
  { say "configure failed"; exit 1; }
step "build" 240 ninja -C "$build" -j"$jobs" || { say "build failed"; exit 1; }
step "tests (gpu, unit)" 240 "${meson[@]}" test -C "$build" --suite gpu --suite unit \
  --print-errorlogs --num-processes "$jobs"

say "== registers (-Xptxas -v)"
for f in gpu/bsgpu.cu keysearch/bsks_cuda.cu; do
  nvcc -std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -Icore -Igpu -Ikeysearch -Xptxas -v -c "$f" \
    -o /dev/null 2>&1 | grep -E "Compiling entry|registers|spill" | sed 's/ptxas info *: //'
done | if [ -n "$out" ]; then tee "$out/registers.txt"; else cat; fi

# shellcheck disable=SC2086
step "bench" 300 "$build/bench/gpu/bsgpu-bench" ${out:+--out "$out/device-check.md"} \
  ${BSGPU_BENCH_ARGS:-}

say "== summary ($((SECONDS - t0)) s)"
printf '  %s\n' "${summary[@]}"
[ -n "$out" ] && printf '%s\n' "${summary[@]}" >"$out/summary.txt"
exit "$status"
