#!/usr/bin/env bash
# Runs every test of bitslice: the main build's Meson suites, then each extra stage in
# scripts/test.d/ (other compilers and optimisation levels, sanitizers, cross builds under QEMU,
# fuzzing for a bounded time). Prints one summary line per stage and a closing total.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export BS_TOP="$top"
jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
failures=()

stage() { # name command...
  local name=$1
  shift
  echo "=== $name"
  local t0=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    echo "=== $name: ok ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1))
    failures+=("$name")
    echo "=== $name: FAILED ($((SECONDS - t0)) s)"
  fi
}

main_build() {
  # Where the machine has nvcc, the kernels must build: 'auto' would quietly leave them out if
  # the toolkit were found only in part (a wrapper nvcc whose libcudart is elsewhere).
  local cuda=auto
  if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then cuda=enabled; fi
  if [ -d build/meson-private ]; then
    meson setup --reconfigure -Dcuda=$cuda build >/dev/null || { meson setup --reconfigure -Dcuda=$cuda build | tail -20; return 1; }
  else
    meson setup -Dcuda=$cuda build >/dev/null || { rm -rf build; meson setup -Dcuda=$cuda build | tail -20; return 1; }
  fi
  ninja -C build -j "$jobs" >/dev/null || { ninja -C build -j 1 2>&1 | tail -40; return 1; }
  meson test -C build --num-processes "$jobs" --print-errorlogs
}

# The packages first (installs only what is missing; asks for sudo if not root).
bash scripts/setup.sh || exit 1
stage "meson test (build/)" main_build
for s in scripts/test.d/*.sh; do
  [ -e "$s" ] || continue
  stage "$(basename "$s" .sh)" bash "$s"
done

echo
[ ${#failures[@]} -eq 0 ] || echo "failed stages: ${failures[*]}"
echo "stages: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
