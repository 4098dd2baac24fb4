#!/usr/bin/env bash
# The 'ct' suite (valgrind secret taint) for gcc and clang at -O0 and -O2: a constant-time
# source can still compile to a secret-dependent branch at one level and not at another.
# Build dirs: build-ct-<cc>-O<n>, reused when already configured. Prints one line per
# configuration; exits non-zero if any configuration fails to build or to pass.
set -uo pipefail
top=${BS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)
status=0

for cc in gcc clang; do
  for opt in 0 2; do
    dir=build-ct-$cc-O$opt
    name="ct $cc -O$opt"
    t0=$SECONDS
    if ! command -v "$cc" >/dev/null 2>&1; then
      echo "$name: FAILED ($cc not found)"
      status=1
      continue
    fi
    mkdir -p "$dir"
    log=$dir/ct-matrix.log
    if [ -d "$dir/meson-private" ]; then
      setup=(meson setup --reconfigure "$dir")
    else
      setup=(env CC="$cc" meson setup -Doptimization="$opt" -Ddebug=true -Dc_args=-gdwarf-4 "$dir")
    fi
    # Build only what the suite runs: the rest of the tree has its own stages.
    if ! "${setup[@]}" >"$log" 2>&1 ||
      ! ninja -C "$dir" -j "$jobs" tests/ct/ct_taint >>"$log" 2>&1; then
      tail -40 "$log"
      echo "$name: FAILED (build; log in $log)"
      status=1
      continue
    fi
    if meson test -C "$dir" --no-rebuild --suite ct --num-processes "$jobs" --print-errorlogs \
      >>"$log" 2>&1; then
      summary=$(grep -E '^(Ok|Fail|Timeout):' "$log" | tail -3 | tr -s ' ' | tr '\n' ' ')
      echo "$name: ok ($((SECONDS - t0)) s; $summary)"
    else
      tail -80 "$log"
      echo "$name: FAILED (log in $log; meson-logs/testlog.txt in $dir)"
      status=1
    fi
  done
done
exit $status
