#!/usr/bin/env bash
# Cross builds for Cortex-M3, Cortex-M4 and RV32I, each running the KAT firmware under QEMU
# (embedded/README.md), and the Cortex-M4 build with only the MCU variants
# (-Dhost_cores=disabled, small key schedules). Reuses build-m3, build-m4, build-rv32 and
# build-mcuonly-m4 when they are configured.
set -uo pipefail
top=${BS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
status=0
# The generated code (embedded/gen/: the AES in Thumb-2 and RV32I, the masked S-box and its
# Thumb-2, the masked linear layers, the masked key schedule's SubWord in Thumb-2, GIFT-64 in Thumb-2, the GIFT tables, SKINNY-128 in
# Thumb-2) is made by each build below, every generator checking its program against its model
# (known answers, all inputs and masks, the C's steps) before it writes: a failed check fails
# the build.
# dir:cross file[:meson option]
# small-m3: -Daes_unrolled=false (the small-flash AES: fix32 and FACE in C, not the generated
# straight-line Thumb-2), its firmware and example only.
for target in m3:cortex-m3 m4:cortex-m4 rv32:rv32i mcuonly-m4:cortex-m4:-Dhost_cores=disabled \
  small-m3:cortex-m3:-Daes_unrolled=false; do
  IFS=: read -r name cross_name opt <<<"$target"
  dir=build-$name
  cross=embedded/cross/$cross_name.ini
  if [ "$name" = small-m3 ]; then
    echo "--- $cross_name $opt ($dir)"
    if [ ! -d "$dir/meson-private" ] && ! meson setup "$dir" --cross-file "$cross" "$opt" >/dev/null; then
      echo "meson setup $dir failed"
      status=1
      continue
    fi
    if ! ninja -C "$dir" -j 2 embedded/test_fw embedded/examples/aes_gcm_tag >/dev/null; then
      ninja -C "$dir" -j 1 embedded/test_fw embedded/examples/aes_gcm_tag 2>&1 | tail -30
      status=1
      continue
    fi
    meson test -C "$dir" --no-rebuild --suite embedded --num-processes 2 --print-errorlogs || status=1
    continue
  fi
  echo "--- $cross_name${opt:+ $opt} ($dir)"
  if [ ! -d "$dir/meson-private" ]; then
    if ! meson setup "$dir" --cross-file "$cross" ${opt:+"$opt"} >/dev/null; then
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
  # The masked S-box the Cortex-M objects hold (the generated Thumb-2, every level): no value
  # and no register or store transition depends on the state; without its clears it fails.
  case $cross_name in
  cortex-m*)
    python3 tests/leak/check_sbox_thumb.py --transitions-zero arm-none-eabi-objdump \
      "$dir"/core/*.a.p/aes_aes_masked32.c.o || status=1
    # The value-model variant's S-box (same program, no transition rule): its values, bit by
    # bit, every level; the control (m1 = m0) fails.
    python3 tests/leak/check_sbox_thumb.py --func sbox_masked_v_t2 arm-none-eabi-objdump \
      "$dir"/core/*.a.p/aes_aes_masked32.c.o || status=1
    # The linear layers (MixColumns, correction, key shares), every level: no value and no
    # transition depends on the state or the key (word-level rank test); the controls fail.
    # And the drivers: no data of the C's in r0..r12 at a call, only pointers and zeros stored,
    # the S-box's slots zero at its first call; without the entry clears or the slot stores
    # they fail. The value-model variant's drivers: its S-box's slots and its final state (q)
    # zeroed on the way out, by the generated code (its C wipes nothing); without those stores
    # they fail.
    python3 tests/leak/check_lin_thumb.py arm-none-eabi-objdump \
      "$dir"/core/*.a.p/aes_aes_masked32.c.o || status=1
    # (check_lin_thumb.py above also checks the default key schedule's SubWord: its trades
    # around the encryption's S-box, their driver and the wipe of the S-box's slots.)
    # The DOM key set-up's SubWord (the generated DOM S-box), every level: the C's values and
    # shares, no write that puts one share over the other or a cross product or fresh bits
    # where they would combine, two calls in a row; without its clears between values it fails.
    python3 tests/leak/check_dom_thumb.py arm-none-eabi-objdump \
      "$dir"/core/*.a.p/aes_aes_masked32.c.o || status=1
    ;;
  esac
done
# The C S-box compiled for the M4 at every level (-DBS_AES_MASKED_C_SBOX): its values pass,
# its transitions are reported (GCC's allocation lets about 150 depend on the state) ...
python3 tests/leak/check_sbox_thumb.py --c-sbox build-m4 || status=1
# ... and without its compiler barriers its values do not (the control).
python3 tests/leak/check_sbox_thumb.py --no-hide-control build-m4 || status=1
exit $status
