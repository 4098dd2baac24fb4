#!/usr/bin/env bash
# `openssl speed -evp` for every bitslice cipher and for OpenSSL's AES-256-CTR/GCM, so that the
# figures of bench_evp can be reproduced with OpenSSL's own tool.
#   bench/evp/speed.sh [provider dir (default build/provider)] [seconds per size (default 1)]
set -euo pipefail
dir=$(cd "${1:-build/provider}" && pwd)
secs=${2:-1}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
[ -e "$dir/bitslice.so" ] || { echo "no bitslice.so in $dir" >&2; exit 1; }
for c in AES-256-CTR AES-256-GCM RIJNDAEL-256-CTR RIJNDAEL-256-GCM GIFT-128-CTR GIFT-64-CTR \
    PRESENT-128-CTR PRESENT-80-CTR SPEEDY-7-192-CTR SPEEDY-6-192-CTR SPEEDY-5-192-CTR; do
    OPENSSL_CONF=/dev/null openssl speed -provider-path "$dir" -provider default \
        -provider bitslice -evp "$c" -seconds "$secs" 2>/dev/null | sed -n '/^type/,$p' >"$tmp"
    if [ "$c" = AES-256-CTR ]; then cat "$tmp"; else tail -n +2 "$tmp"; fi
done
