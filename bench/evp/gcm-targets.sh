#!/usr/bin/env bash
# Issue 23's targets with OpenSSL's own tool: `openssl speed -evp` (which re-keys every AEAD
# message) of RIJNDAEL-256-GCM/CTR through the provider against AES-256-GCM/CTR, for the system
# OpenSSL and another one (an install prefix, e.g. 3.5.3 from its release tag: bench/README.md),
# the two sides alternated cell by cell in each round, medians of the rounds. The masked rows
# hide VAES, VPCLMULQDQ and AVX-512F from OpenSSL (OPENSSL_ia32cap) and cap the provider at AES-NI
# (BITSLICE_CPU=aesni), on both sides.
#   bench/evp/gcm-targets.sh [build dir (build)] [other OpenSSL prefix (/opt/openssl-3.5.3)]
#                            [rounds (3)] [whole seconds per cell (1)]
# Prints one Markdown table per OpenSSL: MB/s (10^6 B per CPU second, as speed counts) and ratios.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
other=${2:-/opt/openssl-3.5.3}
rounds=${3:-3}
secs=${4:-1}
prov=$build/provider
[ -e "$prov/bitslice.so" ] || { echo "no bitslice.so in $prov" >&2; exit 1; }
[ -x "$other/bin/openssl" ] || { echo "no $other/bin/openssl (bench/README.md builds one)" >&2; exit 1; }
mask=':~0x60000010000' # CPUID(7).ECX VAES (bit 41) and VPCLMULQDQ (42), .EBX AVX512F (16)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cell NAME ALG BYTES [masked]: one speed run, its figure (1000s of bytes per second) appended.
cell() {
  local name=$1 alg=$2 bytes=$3 masked=${4:-} out
  local -a env=(OPENSSL_CONF=/dev/null)
  [ "$name" = other ] && env+=(LD_LIBRARY_PATH="$other/lib")
  [ -n "$masked" ] && env+=(OPENSSL_ia32cap="$mask" BITSLICE_CPU=aesni)
  local bin=openssl
  [ "$name" = other ] && bin=$other/bin/openssl
  out=$(env "${env[@]}" "$bin" speed -provider-path "$prov" -provider default -provider bitslice \
    -evp "$alg" -seconds "$secs" -bytes "$bytes" 2>/dev/null) || true
  local v
  v=$(printf '%s\n' "$out" | awk -v a="$alg" '$1 == a { sub(/k$/, "", $NF); print $NF }' | tail -1)
  [ -n "$v" ] || { echo "no figure from $bin speed -evp $alg -bytes $bytes" >&2; exit 1; }
  echo "$v" >>"$tmp/$name.$alg.$bytes${masked:+.masked}"
}

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

gcm_sizes="16 64 256 1024 16384 1048576"
ctr_sizes="1024 16384"
for r in $(seq "$rounds"); do
  for name in system other; do
    for b in $gcm_sizes; do
      cell $name AES-256-GCM "$b"
      cell $name RIJNDAEL-256-GCM "$b"
    done
    for b in $ctr_sizes; do
      cell $name AES-256-CTR "$b"
      cell $name RIJNDAEL-256-CTR "$b"
    done
    cell $name AES-256-GCM 16384 masked
    cell $name RIJNDAEL-256-GCM 16384 masked
  done
done

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rounds: $rounds, ${secs} s per cell, medians; speed's figures in 1000s of bytes per CPU second"
for name in system other; do
  if [ $name = system ]; then ver=$(openssl version); else ver=$(LD_LIBRARY_PATH="$other/lib" "$other/bin/openssl" version); fi
  echo
  echo "$ver ($name)"
  echo
  echo "| cell | AES-256 MB/s | RIJNDAEL-256 MB/s | RIJNDAEL ÷ AES |"
  echo "|---|---|---|---|"
  row() {
    local label=$1 a=$2 b=$3 suf=$4
    local x y
    x=$(median "$tmp/$name.$a$suf")
    y=$(median "$tmp/$name.$b$suf")
    awk -v l="$label" -v x="$x" -v y="$y" 'BEGIN { printf "| %s | %.1f | %.1f | %.3f× |\n", l, x / 1000, y / 1000, y / x }'
  }
  for b in $gcm_sizes; do row "GCM $b B" AES-256-GCM RIJNDAEL-256-GCM ".$b"; done
  for b in $ctr_sizes; do row "CTR $b B" AES-256-CTR RIJNDAEL-256-CTR ".$b"; done
  row "GCM 16384 B, VAES masked" AES-256-GCM RIJNDAEL-256-GCM ".16384.masked"
done
