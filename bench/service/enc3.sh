#!/usr/bin/env bash
# openssl enc on one file, three ways in one run (prints a table; asserts nothing):
#   1. PRESENT-128-CTR, bitslice provider in-process ($BITSLICE_SOCKET=off);
#   2. PRESENT-128-CTR, bitslice provider offloading to bitsliced's CPU backend
#      ($BITSLICE_SOCKET = a daemon started here; default offload-threshold, 1 MiB);
#   3. AES-256-CTR, OpenSSL's default provider.
# Usage: bench/service/enc3.sh BUILD_DIR [FILE_MIB=2048] [ROUNDS=1]
# CPU: user+sys of openssl, plus (way 2) the daemon's own user+sys over the run, from
# /proc/PID/stat. The file and outputs live in $TMPDIR (page cache: the first read is warm).
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
mib=${2:-2048}
rounds=${3:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/bs-enc3-XXXXXX")
sock=$work/run/bitsliced.sock
dpid=
trap '[ -n "$dpid" ] && kill "$dpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
tck=$(getconf CLK_TCK)
# Way 2 measures the daemon path: offload forced (offload=auto would decide per cipher).
export BITSLICE_OFFLOAD=always

proc_cpu() { # user+sys seconds of a live process
  awk -v t="$tck" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / t }' "/proc/$1/stat"
}

# label sock command...: one line of the table.
timed() {
  local label=$1 sk=$2 t d0=0 d1=0
  shift 2
  [ -n "$dpid" ] && d0=$(proc_cpu "$dpid")
  t=$( { TIMEFORMAT='%R %U %S'; time env BITSLICE_SOCKET="$sk" "$@" >/dev/null 2>&1; } 2>&1 |
    tail -1)
  [ -n "$dpid" ] && d1=$(proc_cpu "$dpid")
  awk -v l="$label" -v t="$t" -v m="$mib" -v d="$(echo "$d1 - $d0" | bc)" -v sk="$sk" 'BEGIN {
    split(t, a, " "); c = a[2] + a[3]; if (sk == "off") d = 0;
    printf "%-36s %7.2f s %8.1f MB/s  openssl cpu %6.2f s  daemon cpu %6.2f s  total %6.2f s\n",
      l, a[1], m * 1048576 / a[1] / 1e6, c, d, c + d }'
}

"$build/service/bitsliced" --socket "$sock" 2>"$work/daemon.log" &
dpid=$!
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done

head -c $((mib * 1048576)) /dev/urandom >"$work/in"
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
iv=0000000000000000
prov=(-provider-path "$build/provider" -provider bitslice -provider default)
echo "# openssl enc, $mib MiB file, $(nproc) CPUs, $(openssl version | cut -d' ' -f1-2)"
for r in $(seq "$rounds"); do
  [ "$rounds" -gt 1 ] && echo "## round $r"
  timed "PRESENT-128-CTR in-process" off \
    openssl enc "${prov[@]}" -present-ctr -K "${key:0:32}" -iv "$iv" -in "$work/in" -out "$work/o1"
  served0=$("$build/tools/bitslice" status --socket "$sock" | sed -n 's/^bytes_served=//p')
  timed "PRESENT-128-CTR via bitsliced (cpu)" "$sock" \
    openssl enc "${prov[@]}" -present-ctr -K "${key:0:32}" -iv "$iv" -in "$work/in" -out "$work/o2"
  served1=$("$build/tools/bitslice" status --socket "$sock" | sed -n 's/^bytes_served=//p')
  timed "AES-256-CTR (OpenSSL default)" off \
    openssl enc -aes-256-ctr -K "$key" -iv "${iv}${iv}" -in "$work/in" -out "$work/o3"
  if cmp -s "$work/o1" "$work/o2"; then same=identical; else same="DIFFERENT (bug)"; fi
  echo "   daemon served $(((served1 - served0) / 1048576)) MiB of keystream; outputs 1 and 2 $same"
  rm -f "$work/o1" "$work/o2" "$work/o3"
done
