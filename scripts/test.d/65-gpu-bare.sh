#!/usr/bin/env bash
# The GPU device check as on a bare GPU machine: the carried packages (gpu/fetch-gpu-deps.sh),
# the system's uv, cmocka and OpenSSL development files hidden in a private mount namespace
# (gpu/bare-machine.sh), then gpu/device-check.sh. Configure, the GPU build, the rest of the
# build and the gpu suite must pass from the carried packages alone; only the device
# steps (the device test, compute-sanitizer, the bench sections) may skip. Needs nvcc and root
# (unshare -m); says so and passes where either is missing.
set -euo pipefail
cd "${BS_TOP:-$(dirname "$0")/../..}"
# First the device check's daemon step (gpu/device-daemon.sh) on the CPU backend, on the main
# build, with its big file and stream rows small (its 256 MiB file and bench rows are fixed): the script a device run depends on, every step of it but the GPU's
# counters, so that a lent device's minutes are not lost to a broken script.
dd=$(mktemp -d /tmp/bitslice-daemon-cpu.XXXXXX)
if ! BSGPU_DAEMON_BACKEND=cpu BSGPU_BIG_MIB=64 BSGPU_STREAM_MIB=64 \
  bash gpu/device-daemon.sh build "$dd" >"$dd/console" 2>&1; then
  tail -40 "$dd/console"
  echo "gpu-bare: gpu/device-daemon.sh failed on the CPU backend"
  rm -rf "$dd"
  exit 1
fi
rows=$(grep -c '^| ' "$dd/daemon.md" || true)
rm -rf "$dd"
echo "gpu-bare: gpu/device-daemon.sh on the CPU backend: $rows table rows"
[ "$rows" -gt 0 ] || { echo "gpu-bare: gpu/device-daemon.sh wrote no table"; exit 1; }
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "gpu-bare: no nvcc on this machine: not run"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
  echo "gpu-bare: needs root and unshare for the private mount namespace: not run"
  exit 0
fi
ls .gpu-deps/*.deb >/dev/null 2>&1 || bash gpu/fetch-gpu-deps.sh >/dev/null
out=$(mktemp -d /tmp/bitslice-gpu-bare.XXXXXX)
trap 'rm -rf "$out"' EXIT
# The gpu suite only: the main build already runs the unit suite, and what the carried packages
# must serve (cmocka, libuv for the backend test) the gpu suite uses.
if ! BSGPU_BUILD=build-bare BSGPU_SUITES=gpu BSGPU_TEST_TIMEOUT=900 OUT="$out" \
  bash gpu/bare-machine.sh bash gpu/device-check.sh >"$out/log" 2>&1; then
  tail -80 "$out/log"
  echo "gpu-bare: device-check.sh failed"
  exit 1
fi
cat "$out/summary.txt"
fail=0
for want in "configure: rc=0" "build (GPU targets): rc=0" \
  "build (everything else, not fatal): rc=0" "tests (gpu): rc=0"; do
  grep -qF "$want" "$out/summary.txt" || { echo "gpu-bare: missing '$want'"; fail=1; }
done
# The device steps skip without a device, and nothing else does.
for s in copies kernels bulk keysearch; do
  grep -qF "bench $s: skipped (no device)" "$out/summary.txt" ||
    { echo "gpu-bare: bench $s did not skip"; fail=1; }
done
grep -qF "daemon on the GPU (openssl enc, seal, bench, STATUS): skipped (no device)" \
  "$out/summary.txt" || { echo "gpu-bare: the daemon step did not skip"; fail=1; }
grep -qE 'gpu-device +SKIP' "$out/log" || { echo "gpu-bare: gpu-device did not skip"; fail=1; }
grep -qF '| measurement | size | run 1 | run 2 |' "$out/device-check.md" ||
  { echo "gpu-bare: no result table header"; fail=1; }
# Only the carried packages were used.
grep -qF 'Found pkg-config: /tmp/bitslice-deps/usr/bin/pkgconf' "$out/log" ||
  { echo "gpu-bare: pkg-config was not the carried one"; fail=1; }
rm -rf build-bare
exit "$fail"
