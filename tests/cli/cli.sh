#!/usr/bin/env bash
# Suite 'cli': the real openssl binary with this build's bitslice.so.
#   cli.sh <openssl> <provider dir> <test config> <source dir> <check> [cipher]
# checks: list, kat, enc <cipher>, conf, speed, errors.
# $BS_OPENSSL_WRAPPER goes in front of every openssl (valgrind from the valgrind setup; an
# LD_PRELOAD of libasan from scripts/test.d/31-asan.sh);
# $BS_VALGRIND_QUICK=1 (same setup) runs a subset: one known answer per cipher, sizes 0 and
# 4097 (no 10 MiB file), -pbkdf2 at one size, speed for two ciphers.
set -euo pipefail
# These checks are of the provider in-process and of its config keys (OPENSSL_CONF=/dev/null or a
# config of their own). The caller's daemon socket, offload mode or offload figures would send
# them through whatever daemon those name, or disable the provider (a mode that is not one):
# the service suite's provider-offload test covers the daemon path, on a daemon of its own.
unset BITSLICE_SOCKET BITSLICE_OFFLOAD BITSLICE_OFFLOAD_FIGURES
openssl_bin=$1 provdir=$2 testconf=$3 srcdir=$4 check=$5
cipher=${6:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bsprov-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0

# Runs openssl with only this build's module path; stderr goes to $tmp/err.
ossl() {
    # shellcheck disable=SC2086
    OPENSSL_CONF=/dev/null OPENSSL_MODULES="$provdir" ${BS_OPENSSL_WRAPPER:-} "$openssl_bin" "$@" 2>"$tmp/err"
}
prov=(-provider-path "$provdir" -provider bitslice -provider default)
fail() {
    echo "FAIL: $*"
    [ -s "$tmp/err" ] && sed -n 's/^/  stderr: /; 1,5p' "$tmp/err"
    failures=$((failures + 1))
}
ok() { echo "ok: $*"; }

# Key and IV sizes of docs/spec/algorithms.md.
keylen() {
    case $1 in
    PRESENT-80-CTR) echo 10 ;;
    RIJNDAEL-256-* | SKINNY-128-256-CTR) echo 32 ;;
    SPEEDY-*) echo 24 ;;
    SKINNY-128-384-CTR) echo 48 ;;
    *) echo 16 ;;
    esac
}
ivlen() {
    case $1 in
    GIFT-128-CTR | RIJNDAEL-256-CTR | SKINNY-128-*-CTR | SPEEDY-*) echo 16 ;;
    RIJNDAEL-256-GCM) echo 28 ;;
    *) echo 8 ;;
    esac
}
randhex() { head -c "$1" /dev/urandom | xxd -p | tr -d '\n'; }
ctr_ciphers=(RIJNDAEL-256-CTR GIFT-128-CTR GIFT-64-CTR PRESENT-128-CTR PRESENT-80-CTR)
ctr_ciphers+=(SKINNY-128-384-CTR SKINNY-128-256-CTR SKINNY-128-128-CTR)
ctr_ciphers+=(SPEEDY-7-192-CTR SPEEDY-6-192-CTR SPEEDY-5-192-CTR)
all_ciphers=(RIJNDAEL-256-GCM "${ctr_ciphers[@]}")

check_list() {
    if ossl list -providers "${prov[@]}" >"$tmp/out" && grep -q '^  bitslice$' "$tmp/out" &&
        grep -q 'status: active' "$tmp/out"; then
        ok "list -providers shows bitslice"
    else
        fail "list -providers"
    fi
    ossl list -cipher-algorithms "${prov[@]}" >"$tmp/out" || fail "list -cipher-algorithms"
    for c in "${all_ciphers[@]}"; do
        if grep -q "{ $c, .*} @ bitslice" "$tmp/out"; then
            ok "list -cipher-algorithms shows $c"
        else
            fail "list -cipher-algorithms lacks $c"
        fi
    done
}

# CTR known answers of tests/kat/ctr.kat through openssl enc -K/-iv.
check_kat() {
    local n=0
    # A stanza with a whole counter block (Counter, no IV) has no openssl enc equivalent.
    awk '/^Cipher = /{c=$3; iv=""} /^Key = /{k=$3} /^IV = /{iv=$3} /^Plaintext = /{p=$3}
         /^Ciphertext = /{if (iv != "" && (!quick || !seen[c]++)) print c, k, iv, p, $3}' \
        quick="${BS_VALGRIND_QUICK:-}" "$srcdir/tests/kat/ctr.kat" >"$tmp/kats"
    while read -r c k iv p want; do
        printf '%s' "$p" | xxd -r -p >"$tmp/p"
        if ! ossl enc "${prov[@]}" -e "-$c" -K "$k" -iv "$iv" -in "$tmp/p" -out "$tmp/c"; then
            fail "enc $c KAT"
            continue
        fi
        got=$(xxd -p "$tmp/c" | tr -d '\n')
        if [ "$got" = "$want" ]; then n=$((n + 1)); else fail "$c KAT: got $got, want $want"; fi
    done <"$tmp/kats"
    [ "$n" -gt 0 ] || fail "no CTR known answer ran"
    ok "$n CTR known answers match through openssl enc"
    # The short aliases of docs/spec/algorithms.md reach the same cipher.
    local alias canon
    for alias in skinny-ctr:SKINNY-128-384-CTR speedy-ctr:SPEEDY-7-192-CTR speedy6-192-ctr:SPEEDY-6-192-CTR \
        speedy5-192-ctr:SPEEDY-5-192-CTR; do
        canon=${alias#*:} alias=${alias%%:*}
        read -r c k iv p want < <(grep -m1 "^$canon " "$tmp/kats")
        printf '%s' "$p" | xxd -r -p >"$tmp/p"
        if ossl enc "${prov[@]}" -e "-$alias" -K "$k" -iv "$iv" -in "$tmp/p" -out "$tmp/c" &&
            [ "$(xxd -p "$tmp/c" | tr -d '\n')" = "$want" ]; then
            ok "enc -$alias is $canon"
        else
            fail "enc -$alias differs from $canon"
        fi
    done
}

check_enc() {
    local c=$1 sizes=(0 1 4095 4097 10485760)
    [ -n "${BS_VALGRIND_QUICK:-}" ] && sizes=(0 4097)
    local key iv lc
    lc=$(echo "$c" | tr '[:upper:]' '[:lower:]')
    for size in "${sizes[@]}"; do
        head -c "$size" /dev/urandom >"$tmp/p"
        key=$(randhex "$(keylen "$c")")
        iv=$(randhex "$(ivlen "$c")")
        if ossl enc "${prov[@]}" -e "-$lc" -K "$key" -iv "$iv" -in "$tmp/p" -out "$tmp/c" &&
            ossl enc "${prov[@]}" -d "-$lc" -K "$key" -iv "$iv" -in "$tmp/c" -out "$tmp/d" &&
            cmp -s "$tmp/p" "$tmp/d" && [ "$(stat -c %s "$tmp/c")" -eq "$size" ]; then
            # A stream cipher that changed nothing would round-trip too.
            if [ "$size" -ge 4095 ] && cmp -s "$tmp/p" "$tmp/c"; then
                fail "$c -K/-iv $size B: ciphertext equals plaintext"
            else
                ok "$c -K/-iv round trip, $size B"
            fi
        else
            fail "$c -K/-iv round trip, $size B"
        fi
        [ -n "${BS_VALGRIND_QUICK:-}" ] && [ "$size" -ne 4097 ] && continue
        if ossl enc "${prov[@]}" -e "-$lc" -pbkdf2 -pass pass:bitslice -in "$tmp/p" -out "$tmp/c" &&
            ossl enc "${prov[@]}" -d "-$lc" -pbkdf2 -pass pass:bitslice -in "$tmp/c" -out "$tmp/d" &&
            cmp -s "$tmp/p" "$tmp/d" && [ "$(head -c 8 "$tmp/c")" = "Salted__" ]; then
            ok "$c -pbkdf2 -pass round trip, $size B"
        else
            fail "$c -pbkdf2 -pass round trip, $size B"
        fi
    done
}

# conf/bitslice.cnf (the shipped config) and the generated test config, with no -provider flags.
check_conf() {
    local key iv
    head -c 5000 /dev/urandom >"$tmp/p"
    if OPENSSL_CONF="$srcdir/conf/bitslice.cnf" OPENSSL_MODULES="$provdir" ${BS_OPENSSL_WRAPPER:-} \
        "$openssl_bin" enc -gift-ctr -pbkdf2 -pass pass:x -in "$tmp/p" -out "$tmp/c" 2>"$tmp/err" &&
        OPENSSL_CONF="$srcdir/conf/bitslice.cnf" OPENSSL_MODULES="$provdir" ${BS_OPENSSL_WRAPPER:-} \
            "$openssl_bin" enc -d -gift-ctr -pbkdf2 -pass pass:x -in "$tmp/c" 2>"$tmp/err" |
        cmp -s - "$tmp/p"; then
        ok "conf/bitslice.cnf: enc -gift-ctr -pbkdf2 with no -provider flags"
    else
        fail "conf/bitslice.cnf"
    fi
    key=$(randhex 16) iv=$(randhex 8)
    if OPENSSL_CONF="$testconf" ${BS_OPENSSL_WRAPPER:-} "$openssl_bin" enc -present-ctr -K "$key" \
        -iv "$iv" -in "$tmp/p" -out "$tmp/c" 2>"$tmp/err" &&
        ossl enc "${prov[@]}" -d -present-128-ctr -K "$key" -iv "$iv" -in "$tmp/c" -out "$tmp/d" &&
        cmp -s "$tmp/p" "$tmp/d"; then
        ok "generated test config: enc -present-ctr, decrypted through -provider-path"
    else
        fail "generated test config"
    fi
    # The provider's data limit from a config key: 5000 bytes are 625 blocks of 8 bytes.
    { cat "$srcdir/conf/bitslice.cnf"; echo "limit64-blocks = 600"; } >"$tmp/limit.cnf"
    if OPENSSL_CONF="$tmp/limit.cnf" OPENSSL_MODULES="$provdir" ${BS_OPENSSL_WRAPPER:-} "$openssl_bin" \
        enc -present-ctr -K "$key" -iv "$iv" -in "$tmp/p" -out "$tmp/c" 2>"$tmp/err"; then
        fail "limit64-blocks = 600 let 625 blocks through"
    elif grep -q "PRESENT-128-CTR: data limit reached: at most 600 blocks" "$tmp/err"; then
        ok "config limit64-blocks = 600 stops enc with our message"
    else
        fail "config limit64-blocks: unexpected message"
    fi
    # Daemon offload configured, no daemon on the socket: in-process, the same bytes (the
    # service suite's provider-offload test covers a real daemon).
    { cat "$srcdir/conf/bitslice.cnf"; echo "daemon-socket = $tmp/absent.sock"
      echo "offload-threshold = 0"; } >"$tmp/daemon.cnf"
    # shellcheck disable=SC2086
    if OPENSSL_CONF="$tmp/daemon.cnf" OPENSSL_MODULES="$provdir" \
        ${BS_OPENSSL_WRAPPER:-} "$openssl_bin" enc -present-ctr -K "$key" -iv "$iv" \
        -in "$tmp/p" -out "$tmp/c2" 2>"$tmp/err" && ossl enc "${prov[@]}" -present-128-ctr -K "$key" -iv "$iv" \
        -in "$tmp/p" -out "$tmp/c" && cmp -s "$tmp/c" "$tmp/c2"; then
        ok "config daemon-socket with no daemon: in-process, the same bytes"
    else
        fail "config daemon-socket with no daemon"
    fi
    { cat "$srcdir/conf/bitslice.cnf"; echo "daemon-timeout-ms = 0"; } >"$tmp/tmo.cnf"
    if OPENSSL_CONF="$tmp/tmo.cnf" OPENSSL_MODULES="$provdir" ${BS_OPENSSL_WRAPPER:-} \
        "$openssl_bin" enc -present-ctr -K "$key" -iv "$iv" -in "$tmp/p" -out "$tmp/c" \
        2>"$tmp/err"; then
        fail "daemon-timeout-ms = 0 was accepted"
    elif grep -q "daemon-timeout-ms = '0' not allowed (1..600000 ms)" "$tmp/err"; then
        ok "config daemon-timeout-ms = 0: provider disabled with our message"
    else
        fail "config daemon-timeout-ms: unexpected message"
    fi
    # The cpu key caps the CPU level; the algorithm descriptions say what runs, and the bytes
    # are those of the best level.
    { cat "$srcdir/conf/bitslice.cnf"; echo "cpu = portable"; } >"$tmp/cpu.cnf"
    key=$(randhex 32) iv=$(randhex 16)
    if OPENSSL_CONF="$tmp/cpu.cnf" OPENSSL_MODULES="$provdir" env -u BITSLICE_CPU \
        ${BS_OPENSSL_WRAPPER:-} "$openssl_bin" list -cipher-algorithms -verbose >"$tmp/list" &&
        grep -q "description: RIJNDAEL-256-CTR, implementation bs64" "$tmp/list" &&
        OPENSSL_CONF="$tmp/cpu.cnf" OPENSSL_MODULES="$provdir" ${BS_OPENSSL_WRAPPER:-} \
            "$openssl_bin" enc -rijndael-256-ctr -K "$key" -iv "$iv" -in "$tmp/p" -out "$tmp/c2" &&
        ossl enc "${prov[@]}" -rijndael-256-ctr -K "$key" -iv "$iv" -in "$tmp/p" -out "$tmp/c" &&
        cmp -s "$tmp/c" "$tmp/c2"; then
        ok "config cpu = portable: RIJNDAEL-256-CTR runs bs64, the same bytes as $(grep -m1 -o \
            'RIJNDAEL-256-CTR, implementation [a-z0-9]*' <(ossl list "${prov[@]}" \
            -cipher-algorithms -verbose) | awk '{print $3}')"
    else
        fail "config cpu = portable"
    fi
    { cat "$srcdir/conf/bitslice.cnf"; echo "cpu = fast"; } >"$tmp/cpu.cnf"
    if OPENSSL_CONF="$tmp/cpu.cnf" OPENSSL_MODULES="$provdir" ${BS_OPENSSL_WRAPPER:-} \
        "$openssl_bin" enc -present-ctr -K "$key" -iv "$iv" -in "$tmp/p" -out "$tmp/c" \
        2>"$tmp/err"; then
        fail "cpu = fast was accepted"
    elif grep -q "cpu = 'fast' is not a CPU level" "$tmp/err"; then
        ok "config cpu = fast: provider disabled with our message"
    else
        fail "config cpu: unexpected message"
    fi
}

check_speed() {
    local secs=1 list=("${all_ciphers[@]}")
    [ -n "${BS_VALGRIND_QUICK:-}" ] && list=(RIJNDAEL-256-GCM PRESENT-80-CTR)
    for c in "${list[@]}"; do
        if ossl speed "${prov[@]}" -evp "$c" -seconds "$secs" -bytes 16384 >"$tmp/out" &&
            grep -q "^$c " "$tmp/out"; then
            ok "speed -evp $c: $(grep "^$c " "$tmp/out" | awk '{print $2}') (1000s of bytes/s, 16 KiB)"
        else
            fail "speed -evp $c"
        fi
    done
}

check_errors() {
    # openssl enc pads or cuts -K to the cipher's length, so a wrong key length reaches a
    # cipher from the command line through KRB5KDF, which sets the key length it was given.
    if ossl kdf "${prov[@]}" -keylen 2 -kdfopt cipher:GIFT-128-CTR -kdfopt hexkey:0011 \
        -kdfopt hexconstant:00 KRB5KDF >/dev/null; then
        fail "a 2-byte GIFT-128-CTR key was accepted"
    elif grep -q "GIFT-128-CTR: key length 2 not allowed (16)" "$tmp/err"; then
        ok "wrong key length: our message"
    else
        fail "wrong key length: unexpected message"
    fi
    if ossl mac "${prov[@]}" -cipher RIJNDAEL-256-GCM -macopt "hexkey:$(randhex 32)" \
        -macopt "hexiv:$(randhex 300)" GMAC </dev/null >/dev/null; then
        fail "a 300-byte GCM IV was accepted"
    elif grep -q "RIJNDAEL-256-GCM: IV length 300 not allowed (1..256)" "$tmp/err"; then
        ok "wrong GCM IV length: our message"
    else
        fail "wrong GCM IV length: unexpected message"
    fi
    if ossl enc "${prov[@]}" -rijndael-256-gcm -K 00 -iv 00 </dev/null >/dev/null; then
        fail "openssl enc accepted an AEAD cipher"
    else
        ok "openssl enc refuses RIJNDAEL-256-GCM (AEAD), as documented"
    fi
}

case $check in
list) check_list ;;
kat) check_kat ;;
enc) check_enc "$cipher" ;;
conf) check_conf ;;
speed) check_speed ;;
errors) check_errors ;;
*)
    echo "unknown check $check"
    exit 2
    ;;
esac
[ "$failures" -eq 0 ]
