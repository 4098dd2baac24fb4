#!/usr/bin/env bash
# Service benchmarks (print tables; assert nothing). Usage:
#   bench/service/bench_service.sh BUILD_DIR [FILE_MIB=2048]
# 1. openssl enc on one file: the bitslice provider in-process (PRESENT-CTR, when the provider is
#    built), and OpenSSL's AES-256-CTR; wall time, throughput, CPU.
#    The same three ways with the provider offloading to the daemon: bench/service/enc3.sh.
# 2. bitslice seal and open of the same file, in-process and through bitsliced.
# 3. the batcher: 64 clients x 1 MiB KEYSTREAM requests; STATUS's batch-size median.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
mib=${2:-2048}
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bs-bench-XXXXXX")
sock=$work/run/bitsliced.sock
dpid=
trap '[ -n "$dpid" ] && kill "$dpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
bs=$build/tools/bitslice
# The daemon rows measure the daemon path: offload forced (offload=auto would decide per cipher).
export BITSLICE_OFFLOAD=always

timed() { # label command... : prints wall, MB/s over $mib MiB, user+sys CPU of the command
  local label=$1 t
  shift
  t=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1 | tail -1)
  awk -v l="$label" -v t="$t" -v m="$mib" 'BEGIN { split(t, a, " ");
    printf "%-44s %8.2f s %9.1f MB/s   cpu %6.2f s (%3.0f%% of wall)\n", l, a[1],
      m * 1048576 / a[1] / 1e6, a[2] + a[3], 100 * (a[2] + a[3]) / a[1] }'
}

"$build/service/bitsliced" --socket "$sock" 2>"$work/daemon.log" &
dpid=$!
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done

echo "# file: $mib MiB of random bytes"
head -c $((mib * 1048576)) /dev/urandom >"$work/in"
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
iv=00000000000000000000000000000000
if [ -f "$build/provider/bitslice.so" ]; then
  timed "openssl enc PRESENT-128-CTR, provider in-process" \
    env OPENSSL_MODULES="$build/provider" openssl enc -provider bitslice -provider default \
    -present-ctr -K "${key:0:32}" -iv "${iv:0:16}" -in "$work/in" -out "$work/out"
fi
timed "openssl enc AES-256-CTR (OpenSSL)" \
  openssl enc -aes-256-ctr -K "$key" -iv "$iv" -in "$work/in" -out "$work/out"
"$bs" keygen -o "$work/key"
timed "bitslice seal, in-process" "$bs" seal -q --no-daemon -k "$work/key" -o "$work/s1" "$work/in"
timed "bitslice seal, through bitsliced (cpu)" "$bs" seal -q --socket "$sock" -k "$work/key" \
  -o "$work/s2" "$work/in"
timed "bitslice open, through bitsliced (cpu)" "$bs" open -q --socket "$sock" -k "$work/key" \
  -o "$work/o2" "$work/s2"
cmp -s "$work/in" "$work/o2" || echo "!! round trip differs"
rm -f "$work/out" "$work/s1" "$work/s2" "$work/o2"
echo
echo "# keystream, PRESENT-80: in-process vs daemon (process CPU is the client's own)"
"$bs" bench --socket "$sock" --cipher PRESENT-80 --size-mib 256
echo
kill -TERM "$dpid"; wait "$dpid" || true
"$build/service/bitsliced" --socket "$sock" 2>"$work/daemon.log" &
dpid=$!
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
echo "# batcher: 64 clients x 16 requests x 1 MiB, PRESENT-80, default settings"
"$build/service/bench_batch" "$sock" 64 16 1048576 PRESENT-80
