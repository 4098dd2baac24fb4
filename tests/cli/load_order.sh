#!/usr/bin/env bash
# Load order and names of bitslice beside OpenSSL's own providers (suite 'cli').
#   load_order.sh OPENSSL FETCH_NAMES PROVIDER_DIR SOURCE_DIR
# Runs fetch_names (tests/cli/fetch_names.c) against the libcrypto of OPENSSL, in a module folder
# holding bitslice.so and that OpenSSL's legacy.so, for each order below; then the same through
# the openssl command: with the providers in either order, one cipher gives the same bytes.
# Another OpenSSL, e.g. 3.5 installed in /opt/openssl-3.5.3:
#   tests/cli/load_order.sh /opt/openssl-3.5.3/bin/openssl build/tests/cli/fetch_names \
#       build/provider tests/cli
# The names of tests/cli/openssl-3.5.3-names.txt (every algorithm name of 3.5.3's default and
# legacy providers, made by `fetch_names --dump`) are checked whichever OpenSSL runs this.
# $BS_OPENSSL_WRAPPER goes in front of the openssl command (valgrind, or the ASan preload).
set -euo pipefail
# In-process, as in cli.sh: not through a daemon that the caller's environment names.
unset BITSLICE_SOCKET BITSLICE_OFFLOAD BITSLICE_OFFLOAD_FIGURES
openssl_bin=$1 fetch=$2 provdir=$3 srcdir=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bsprov-order.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

info=$(OPENSSL_CONF=/dev/null "$openssl_bin" version -a 2>/dev/null || true)
if [ -z "$info" ]; then # an OpenSSL in its own prefix: its lib/ beside bin/
  export LD_LIBRARY_PATH="$(cd "$(dirname "$openssl_bin")/.." && pwd)/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  info=$(OPENSSL_CONF=/dev/null "$openssl_bin" version -a)
fi
modules=$(sed -n 's/^MODULESDIR: "\(.*\)"$/\1/p' <<<"$info")
libdir=$(dirname "$modules")
version=$(sed -n 1p <<<"$info")
mkdir "$tmp/modules"
ln -s "$(cd "$provdir" && pwd)/bitslice.so" "$tmp/modules/bitslice.so"
orders=(bitslice,default default,bitslice)
if [ -e "$modules/legacy.so" ]; then
  ln -s "$modules/legacy.so" "$tmp/modules/legacy.so"
  orders+=(default,legacy,bitslice bitslice,legacy,default legacy,bitslice,default)
else
  echo "no legacy.so in $modules: orders with legacy not run"
fi

status=0
for order in "${orders[@]}"; do
  if ! OPENSSL_CONF=/dev/null LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$fetch" "$tmp/modules" "$order" "$srcdir/openssl-3.5.3-names.txt"; then
    status=1
  fi
done

# The openssl command: the same ciphertext whichever provider comes first.
head -c 100000 /dev/urandom >"$tmp/msg"
for first in bitslice default; do
  if [ $first = bitslice ]; then p=(-provider bitslice -provider default); else p=(-provider default -provider bitslice); fi
  # shellcheck disable=SC2086 # the wrapper is a command line
  OPENSSL_CONF=/dev/null OPENSSL_MODULES="$tmp/modules" ${BS_OPENSSL_WRAPPER:-} "$openssl_bin" enc "${p[@]}" -gift-ctr \
    -K 000102030405060708090a0b0c0d0e0f -iv 00000000000000000000000000000001 \
    -in "$tmp/msg" -out "$tmp/ct.$first"
done
if cmp -s "$tmp/ct.bitslice" "$tmp/ct.default"; then
  echo "$version: openssl enc -gift-ctr gives the same bytes with bitslice loaded first or last"
else
  echo "FAIL: openssl enc -gift-ctr differs with the provider order"
  status=1
fi
exit $status
