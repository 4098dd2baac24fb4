#!/usr/bin/env bash
# openssl enc of one large file, in-process, RIJNDAEL-256-CTR (bitslice provider) against
# AES-256-CTR (OpenSSL's default provider), alternated (which goes first alternates too) for
# ROUNDS rounds; prints each run, the medians and their ratio (AES time / RIJNDAEL time, so > 1 means RIJNDAEL-256 is faster).
# Asserts nothing but that both decrypt back to the input's hash.
# Usage: bench/enc/enc-file.sh BUILD_DIR [FILE_MIB=4096] [ROUNDS=3] [DIR=/dev/shm]
# The file is zeros on DIR (tmpfs by default: the disk is not what is measured). Needs
# 2 x FILE_MIB of free space on DIR.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
mib=${2:-4096}
rounds=${3:-3}
dir=${4:-/dev/shm}
work=$(mktemp -d "$dir/bs-encfile-XXXXXX")
trap 'rm -rf "$work"' EXIT
need=$((2 * mib * 1048576))
avail=$(($(df -Pk "$dir" | awk 'NR == 2 { print $4 }') * 1024))
if [ "$avail" -lt "$need" ]; then
  echo "enc-file: $dir has $((avail / 1048576)) MiB free, needs $((need / 1048576))" >&2
  exit 1
fi
head -c $((mib * 1048576)) /dev/zero >"$work/in"
key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
iv=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
prov=(-provider-path "$build/provider" -provider bitslice -provider default)
export BITSLICE_SOCKET=off

run() { # label args...: seconds of wall time for one openssl enc run
  local t0 t1
  t0=$(date +%s.%N)
  openssl enc "$@" -K "$key" -iv "$iv" -in "$work/in" -out "$work/out"
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
check() { # args...: decrypt $work/out and compare with the input
  openssl enc -d "$@" -K "$key" -iv "$iv" -in "$work/out" | cmp -s - "$work/in" ||
    { echo "enc-file: $* did not decrypt back to the input" >&2; exit 1; }
}

echo "# openssl enc, ${mib} MiB file on $dir, in-process; $(nproc) CPUs;" \
  "$(openssl version | cut -d' ' -f1-2); load: $(cut -d' ' -f1-3 /proc/loadavg)"
a=() r=()
for i in $(seq "$rounds"); do
  # Which goes first alternates: the first run of a round pays for the output's tmpfs pages.
  if [ $((i % 2)) = 1 ]; then
    ta=$(run -aes-256-ctr)
    [ "$i" = 1 ] && check -aes-256-ctr
    tr_=$(run "${prov[@]}" -rijndael-256-ctr)
    [ "$i" = 1 ] && check "${prov[@]}" -rijndael-256-ctr
  else
    tr_=$(run "${prov[@]}" -rijndael-256-ctr)
    ta=$(run -aes-256-ctr)
  fi
  rm -f "$work/out"
  printf 'round %d: aes-256-ctr %8.3f s   rijndael-256-ctr %8.3f s\n' "$i" "$ta" "$tr_"
  a+=("$ta") r+=("$tr_")
done
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
  print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ma=$(med "${a[@]}") mr=$(med "${r[@]}")
awk -v a="$ma" -v r="$mr" -v m="$mib" 'BEGIN {
  printf "median: aes-256-ctr %.3f s (%.0f MB/s)   rijndael-256-ctr %.3f s (%.0f MB/s)\n",
    a, m * 1048576 / a / 1e6, r, m * 1048576 / r / 1e6
  printf "ratio (aes time / rijndael time): %.3fx\n", a / r }'
echo "# end load: $(cut -d' ' -f1-3 /proc/loadavg)"
