#!/usr/bin/env bash
# The bitsliced CTR ciphers across call sizes with OpenSSL's own tool (issue 23, item 5):
# `openssl speed -evp` through the provider at 16 B, 1 KiB, 16 KiB and 1 MiB, for the system
# OpenSSL and another one (an install prefix, e.g. 3.5.3: bench/README.md). speed continues one
# CTR stream from call to call (it does not re-key CTR). The cells are alternated: each round
# runs every cipher and size once under each OpenSSL, one after the other; medians of the
# rounds. Each cell gives two rates: bytes per CPU second (what speed itself prints: its loop's
# user time) and bytes per wall second (speed's loop runs SECONDS of wall clock), so that a busy
# machine shows as a gap between them. Several build dirs, comma-separated (an A/B of two trees),
# are alternated too, cell by cell.
#   bench/evp/ctr-sizes.sh [build dir(s) (build)] [other OpenSSL prefix (/opt/openssl-3.5.3)]
#                          [rounds (3)] [whole seconds per cell (1)] [ciphers (the five below)]
# Prints, per OpenSSL, MB/s (10^6 B per CPU second) at each size, the 1 KiB / 16 KiB ratio on
# CPU time and on wall time (target >= 0.4), CPU and wall ns/B at 1 KiB and 16 KiB, and the
# 16 KiB / 1 MiB ratio of ns/B (target for SPEEDY-7-192: <= 1.15).
set -euo pipefail
IFS=, read -r -a builds <<<"${1:-build}"
for i in "${!builds[@]}"; do
  builds[i]=$(cd "${builds[i]}" && pwd)
  [ -e "${builds[i]}/provider/bitslice.so" ] || { echo "no bitslice.so in ${builds[i]}/provider" >&2; exit 1; }
done
other=${2:-/opt/openssl-3.5.3}
rounds=${3:-3}
secs=${4:-1}
ciphers=${5:-PRESENT-80-CTR GIFT-64-CTR GIFT-128-CTR SKINNY-128-384-CTR SPEEDY-7-192-CTR}
names=(system)
[ -x "$other/bin/openssl" ] && names+=(other) ||
  echo "no $other/bin/openssl (bench/README.md builds one): the system OpenSSL only" >&2
sizes="16 1024 16384 1048576"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cell NAME BUILD-INDEX ALG BYTES: one speed run; appends "bytes cpu_seconds" to its file.
cell() {
  local name=$1 bi=$2 alg=$3 bytes=$4 out bin=openssl prov=${builds[$2]}/provider
  local -a env=(OPENSSL_CONF=/dev/null)
  if [ "$name" = other ]; then
    env+=(LD_LIBRARY_PATH="$other/lib")
    bin=$other/bin/openssl
  fi
  out=$(env "${env[@]}" "$bin" speed -mr -provider-path "$prov" -provider default \
    -provider bitslice -evp "$alg" -seconds "$secs" -bytes "$bytes" 2>&1) || true
  # +R:count:alg:cpu seconds (speed's machine-readable result line)
  local r count cpu
  r=$(printf '%s\n' "$out" | awk -F: -v a="$alg" '$1 == "+R" && $3 == a { print $2, $4 }' | tail -1)
  [ -n "$r" ] || { echo "no figure from $bin speed -evp $alg -bytes $bytes" >&2; exit 1; }
  read -r count cpu <<<"$r"
  echo "$((count * bytes)) $cpu" >>"$tmp/$name.$bi.$alg.$bytes"
}

# median of column COL (1: MB/s on CPU time, 2: MB/s on wall time) of a cell's rounds
median() {
  awk -v s="$secs" -v col="$2" '$2 > 0 { print (col == 1 ? $1 / $2 : $1 / s) / 1e6 }' "$1" |
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date -u +%H:%M)
for r in $(seq "$rounds"); do
  for alg in $ciphers; do
    for b in $sizes; do
      for name in "${names[@]}"; do
        for bi in "${!builds[@]}"; do
          cell "$name" "$bi" "$alg" "$b"
        done
      done
    done
  done
done

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); $(nproc) CPUs"
echo "$t0-$(date -u +%H:%M) UTC; load before: $load0; after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rounds: $rounds, $secs s per cell, alternated, medians; MB/s = 10^6 B per CPU second of speed's loop"
for name in "${names[@]}"; do
  if [ "$name" = other ]; then
    bin=$other/bin/openssl
    ver=$(LD_LIBRARY_PATH="$other/lib" OPENSSL_CONF=/dev/null "$bin" version)
  else
    bin=$(command -v openssl)
    ver=$(OPENSSL_CONF=/dev/null openssl version)
  fi
  for bi in "${!builds[@]}"; do
  echo
  echo "### $ver ($bin), provider of ${builds[$bi]}"
  echo
  echo "| CTR | 16 B | 1 KiB | 16 KiB | 1 MiB | 1 KiB / 16 KiB, CPU | same, wall | ns/B 1 KiB CPU / wall | ns/B 16 KiB CPU / wall | 16 KiB / 1 MiB, CPU ns/B |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for alg in $ciphers; do
    declare -A c=() w=()
    for b in $sizes; do
      c[$b]=$(median "$tmp/$name.$bi.$alg.$b" 1)
      w[$b]=$(median "$tmp/$name.$bi.$alg.$b" 2)
    done
    awk -v a="$alg" -v c16="${c[16]}" -v c1k="${c[1024]}" -v c16k="${c[16384]}" -v c1m="${c[1048576]}" \
      -v w1k="${w[1024]}" -v w16k="${w[16384]}" 'BEGIN {
        printf "| %s | %.1f | %.1f | %.1f | %.1f | %.3fx | %.3fx | %.3f / %.3f | %.3f / %.3f | %.3fx |\n",
          a, c16, c1k, c16k, c1m, c1k / c16k, w1k / w16k, 1e3 / c1k, 1e3 / w1k, 1e3 / c16k, 1e3 / w16k,
          c1m / c16k }'
    unset c w
  done
  done
done
