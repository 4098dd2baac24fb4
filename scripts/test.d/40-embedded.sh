#!/usr/bin/env bash
# Cross builds for Cortex-M3, Cortex-M4 and RV32I, each running the KAT firmware under QEMU
# (embedded/README.md). Reuses build-m3, build-m4 and build-rv32 when they are configured.
set -uo pipefail
top=${BS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
status=0
for target in m3:cortex-m3 m4:cortex-m4 rv32:rv32i; do
  dir=build-${target%%:*}
  cross=embedded/cross/${target#*:}.ini
  echo "--- ${target#*:} ($dir)"
  if [ ! -d "$dir/meson-private" ]; then
    if ! meson setup "$dir" --cross-file "$cross" >/dev/null; then
      echo "meson setup $dir failed"
      status=1
      continue
    fi
  fi
  if ! ninja -C "$dir" -j 2 >/dev/null; then
    ninja -C "$dir" -j 1 2>&1 | tail -30
    status=1
    continue
  fi
  meson test -C "$dir" --suite embedded --num-processes 2 --print-errorlogs || status=1
done
exit $status
