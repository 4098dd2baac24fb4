#!/usr/bin/env bash
# bitslice seal/open round trips (0 B, 1 B, a chunk + 1 B, 200 MiB) through a real daemon and
# in-process, and failures (flipped bit, truncation, swapped chunks, wrong passphrase) that
# must fail with a clear message and leave no output file.
set -euo pipefail
: "${BITSLICE:?}" "${BITSLICED:?}"
big_mib=${BS_CLI_BIG_MIB:-200}
work=$(mktemp -d "${TMPDIR:-/tmp}/bs-cli-XXXXXX")
sock=$work/run/bitsliced.sock
dpid=
cleanup() {
  if [ -n "$dpid" ]; then kill -9 "$dpid" 2>/dev/null || true; wait "$dpid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; umount "$work/full" 2>/dev/null || true; [ -f "$work/daemon.log" ] && tail -20 "$work/daemon.log" >&2; exit 1; }

"$BITSLICED" --socket "$sock" 2>"$work/daemon.log" &
dpid=$!
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
[ -S "$sock" ] || fail "daemon did not start"

cd "$work"
"$BITSLICE" keygen -o key
printf 'correct horse battery staple\n' >pass
printf 'Tr0ub4dor&3\n' >wrongpass

roundtrip() { # name file extra-seal-args...
  local name=$1 f=$2
  shift 2
  "$BITSLICE" seal -q -v --socket "$sock" -k key "$@" -o "$f.bs" "$f" 2>"$name.seal.err" ||
    fail "$name: seal: $(cat "$name.seal.err")"
  "$BITSLICE" open -q -v --socket "$sock" -k key -o "$f.out" "$f.bs" 2>"$name.open.err" ||
    fail "$name: open: $(cat "$name.open.err")"
  cmp -s "$f" "$f.out" || fail "$name: round trip differs"
  rm -f "$f.out"
  "$BITSLICE" open -q --no-daemon -k key -o "$f.out2" "$f.bs" || fail "$name: in-process open"
  cmp -s "$f" "$f.out2" || fail "$name: in-process round trip differs"
  grep -q "from daemon:cpu" "$name.open.err" || fail "$name: the daemon did not serve: $(cat "$name.open.err")"
  rm -f "$f.out" "$f.out2"
}

: >empty
head -c 1 /dev/urandom >one
head -c 1025 /dev/urandom >small_chunk_plus_1
head -c $((1048576 + 1)) /dev/urandom >chunk_plus_1
head -c $((1048576 * 2)) /dev/urandom >two_chunks
roundtrip empty empty
roundtrip one one
roundtrip small small_chunk_plus_1 --chunk-log2 10
roundtrip chunk chunk_plus_1
roundtrip exact two_chunks
echo "ok: 0 B, 1 B, 1 KiB chunk + 1 B, 1 MiB chunk + 1 B, exactly two chunks"

head -c $((big_mib * 1048576)) /dev/urandom >big
roundtrip big big
echo "ok: $big_mib MiB through the daemon"
rm -f big big.bs

# Sealed in-process (no daemon at that path), opened through the daemon: same format.
"$BITSLICE" seal -q --socket "$work/nowhere.sock" -k key -o cp.bs chunk_plus_1
"$BITSLICE" open -q --socket "$sock" -k key -o cp.out cp.bs
cmp -s chunk_plus_1 cp.out || fail "in-process seal / daemon open differs"
rm -f cp.out

# Passphrase (scrypt, cheap parameters for the test).
"$BITSLICE" seal -q --socket "$sock" --passphrase-file pass --scrypt-log-n 10 --chunk-log2 10 \
  -o p.bs small_chunk_plus_1
"$BITSLICE" open -q --socket "$sock" --passphrase-file pass -o p.out p.bs
cmp -s small_chunk_plus_1 p.out || fail "passphrase round trip differs"
rm -f p.out

must_fail() { # name expected-message-regex args...
  local name=$1 re=$2
  shift 2
  if "$BITSLICE" open -q --socket "$sock" "$@" -o "$name.out" 2>"$name.err"; then
    fail "$name: open succeeded"
  fi
  grep -Eq "$re" "$name.err" || fail "$name: unclear message: $(cat "$name.err")"
  [ ! -e "$name.out" ] || fail "$name: left an output file"
  ! ls "$name.out".tmp-* >/dev/null 2>&1 || fail "$name: left a temporary file"
  echo "ok: $name -> $(head -1 "$name.err")"
}

must_fail wrongpass 'wrong key or passphrase' --passphrase-file wrongpass p.bs

# scrypt parameters come from the header before its tag can be checked: seal's (r 8, p 1,
# log N <= 20, 1 GiB) are the most open will run, or a crafted header costs GiBs and minutes.
# (Under AddressSanitizer the shadow memory needs terabytes of address space: no ulimit there;
# the timeout still bounds the work.)
if [ -n "${ASAN_OPTIONS:-}" ]; then
  ulimit_mem() { timeout 20 "$@"; }
else
  ulimit_mem() { (ulimit -v 1048576; timeout 20 "$@"); }
fi
for params in '20 32 16' '21 8 1' '20 8 2' '16 16 1'; do
  python3 - p.bs crafted.bs $params <<'PY'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
data[11:14] = bytes(int(v) for v in sys.argv[3:6])
open(sys.argv[2], 'wb').write(data)
PY
  if ulimit_mem "$BITSLICE" open -q --no-daemon --passphrase-file pass -o crafted.out crafted.bs \
      2>crafted.err; then
    fail "crafted scrypt header ($params): open succeeded"
  fi
  grep -q "scrypt parameters this tool never writes" crafted.err ||
    fail "crafted scrypt header ($params): $(cat crafted.err)"
  [ ! -e crafted.out ] || fail "crafted scrypt header ($params): left an output file"
done
echo "ok: crafted scrypt headers -> $(head -1 crafted.err)"

# Over-long passphrases are refused, not cut short.
head -c 2000 /dev/zero | tr '\0' x >longpass
if "$BITSLICE" seal -q --no-daemon --passphrase-file longpass -o long.bs pass 2>long.err; then
  fail "a 2000-byte passphrase was accepted"
fi
grep -q "longer than" long.err || fail "over-long passphrase: $(cat long.err)"
[ ! -e long.bs ] || fail "over-long passphrase: left an output file"
echo "ok: over-long passphrase -> $(head -1 long.err)"

# ^C at the passphrase prompt (echo off): the terminal gets its echo back, nothing is left.
python3 - "$BITSLICE" pass "$work/ctrl-c.bs" <<'PY' || fail "^C at the passphrase prompt"
import os, sys, termios, fcntl, subprocess, time, signal, select
bitslice, infile, out = sys.argv[1:4]
m, s = os.openpty()
def pre():
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
p = subprocess.Popen([bitslice, 'seal', '-q', '--no-daemon', '-p', '-o', out, infile],
                     stdin=s, stdout=s, stderr=s, preexec_fn=pre, close_fds=True)
buf = b''
deadline = time.time() + 10
while b'passphrase:' not in buf and time.time() < deadline:
    r, _, _ = select.select([m], [], [], 0.5)
    if r:
        buf += os.read(m, 1024)
if b'passphrase:' not in buf:
    sys.exit('no prompt: %r' % buf)
if termios.tcgetattr(s)[3] & termios.ECHO:
    sys.exit('echo still on at the prompt')
os.write(m, b'\x03')  # ^C from the terminal: SIGINT to the foreground process group
try:
    rc = p.wait(10)
except subprocess.TimeoutExpired:
    p.kill(); sys.exit('seal did not stop on ^C')
if not termios.tcgetattr(s)[3] & termios.ECHO:
    sys.exit('^C at the passphrase prompt left the terminal without echo (rc %d)' % rc)
if rc != -signal.SIGINT:
    sys.exit('seal ended with %d, not by SIGINT' % rc)
if any(f.startswith(os.path.basename(out)) for f in os.listdir(os.path.dirname(os.path.abspath(out)))):
    sys.exit('left an output or temporary file')
print('ok')
PY
echo "ok: ^C at the passphrase prompt restores the terminal"

# Chunks of 1 KiB: records of 1024 + 32 bytes after the 80-byte header.
head -c 5000 /dev/urandom >five
"$BITSLICE" seal -q --no-daemon -k key --chunk-log2 10 -o five.bs five
rec=1056
# One bit flipped in chunk 1's ciphertext.
python3 - five.bs flip.bs $((80 + rec + 100)) <<'PY'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
data[int(sys.argv[3])] ^= 0x04
open(sys.argv[2], 'wb').write(data)
PY
must_fail flipped 'chunk 1 failed authentication' -k key flip.bs

python3 - five.bs hdr.bs <<'PY'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
data[40] ^= 0x01
open(sys.argv[2], 'wb').write(data)
PY
must_fail header 'header' -k key hdr.bs

head -c $((80 + 4 * rec)) five.bs >trunc_chunk.bs
must_fail truncated_at_chunk 'truncated' -k key trunc_chunk.bs
head -c $((80 + 2 * rec + 500)) five.bs >trunc_mid.bs
must_fail truncated_mid_chunk 'failed authentication|truncated' -k key trunc_mid.bs
head -c 50 five.bs >trunc_hdr.bs
must_fail truncated_header 'too short' -k key trunc_hdr.bs

python3 - five.bs swap.bs $rec <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
r = int(sys.argv[3])
h, c0, c1, rest = data[:80], data[80:80 + r], data[80 + r:80 + 2 * r], data[80 + 2 * r:]
open(sys.argv[2], 'wb').write(h + c1 + c0 + rest)
PY
must_fail swapped 'chunk 0 failed authentication' -k key swap.bs

# The key of another file's format: a passphrase file for a key-file seal.
must_fail wrongkind 'sealed with a key file' --passphrase-file pass five.bs

"$BITSLICE" status --socket "$sock" >status.txt || fail "bitslice status"
grep -q '^backend=cpu$' status.txt || fail "status: $(cat status.txt)"
grep -Eq '^bytes_served=[1-9]' status.txt || fail "status: nothing served"
kill -TERM "$dpid"
wait "$dpid" || fail "daemon exit status $?"
dpid=
[ ! -e "$sock" ] || fail "socket not unlinked on SIGTERM"
echo "ok: status, clean shutdown"

# keysearch: the published PRESENT-80 all-ones vector with 12 key bits unknown.
"$BITSLICE" keysearch --cpu -c PRESENT-80 -k ffffffffff000fffffff -m 0000000000fff0000000 \
    -p 0000000000000000 -x e72c46c0f5945049 >ks.txt || fail "keysearch: $(cat ks.txt)"
grep -q '^found ffffffffffffffffffff$' ks.txt || fail "keysearch: $(cat ks.txt)"
if "$BITSLICE" keysearch --cpu -c PRESENT-80 -k 00000000000000000000 -m 000000000000000000ff \
    -p 0000000000000000 -x e72c46c0f5945049 >ks2.txt; then
    fail "keysearch found a key outside its search space: $(cat ks2.txt)"
fi
echo "ok: keysearch finds a planted key and reports none outside the space"

# A full disk: seal and open fail with the reason and leave no file (needs root to mount a
# small tmpfs; skipped, and said so, where mounting is not allowed).
mkdir -p full
if mount -t tmpfs -o size=256k tmpfs full 2>/dev/null; then
    head -c $((1 << 20)) /dev/urandom >onemeg
    "$BITSLICE" seal -k key -o full/x.bs onemeg 2>seal_err && fail "seal onto a full disk succeeded"
    grep -q 'No space left on device' seal_err || { umount full; fail "seal: $(cat seal_err)"; }
    "$BITSLICE" seal -k key -o onemeg.bs onemeg || { umount full; fail "seal"; }
    "$BITSLICE" open -k key -o full/x onemeg.bs 2>open_err && fail "open onto a full disk succeeded"
    grep -q 'No space left on device' open_err || { umount full; fail "open: $(cat open_err)"; }
    left=$(ls -A full)
    umount full
    [ -z "$left" ] || fail "files left on the full disk: $left"
    echo "ok: full disk -> clear error, nothing left behind"
else
    echo "skip: full-disk check (cannot mount a tmpfs here)"
fi

# CLI conventions: --help on stdout with exit 0 for every command, --version, unknown command or
# option -> the reason on stderr and exit 2, '-' for stdin/stdout, no overwrite without --force,
# never the input as output, provider cipher names.
conv() { # expected-rc stdout-must-match stderr-must-match command...
  local want=$1 out_re=$2 err_re=$3 rc=0
  shift 3
  "$@" >conv.out 2>conv.err || rc=$?
  [ "$rc" -eq "$want" ] || fail "'$*': exit $rc, not $want: $(cat conv.err)"
  [ -z "$out_re" ] || grep -qE "$out_re" conv.out || fail "'$*': stdout lacks /$out_re/: $(head -3 conv.out)"
  [ -n "$out_re" ] || [ ! -s conv.out ] || fail "'$*': unexpected stdout: $(head -3 conv.out)"
  [ -z "$err_re" ] || grep -qE "$err_re" conv.err || fail "'$*': stderr lacks /$err_re/: $(cat conv.err)"
  [ -n "$err_re" ] || [ ! -s conv.err ] || fail "'$*': unexpected stderr: $(cat conv.err)"
}
conv 0 '^usage: bitslice COMMAND' '' "$BITSLICE" --help
conv 0 '^bitslice [0-9]' '' "$BITSLICE" --version
conv 2 '' 'no command given' "$BITSLICE"
conv 2 '' "unknown command 'frobnicate'" "$BITSLICE" frobnicate
conv 2 '' "unknown option '--frobnicate'" "$BITSLICE" --frobnicate
for c in seal open keygen status bench keysearch; do
  conv 0 'usage: bitslice' '' "$BITSLICE" "$c" --help
done
for c in seal open status bench keysearch; do
  conv 2 '' "unknown option.*--frobnicate" "$BITSLICE" "$c" --frobnicate
done
conv 0 'default .*bitsliced\.sock' '' "$BITSLICE" seal --help
conv 0 'default 20: 1 MiB' '' "$BITSLICE" seal --help
conv 0 '^usage: bitsliced' '' "$BITSLICED" --help
conv 0 'default /.*bitsliced\.sock' '' "$BITSLICED" --help
conv 0 '^bitsliced [0-9]' '' "$BITSLICED" --version
conv 2 '' "unknown option '--frobnicate'" "$BITSLICED" --frobnicate
printf 'threads = 1\n' | conv 0 'socket=' '' "$BITSLICED" --config - --check
# --check prints the allow lists as resolved (ids, with names); a list that does not fit is
# refused with file and line, never cut (review F4: a 515-byte list read as "0,6").
conv 0 '^allow_uids=0\(root\),65534(\(|$)' '' "$BITSLICED" --set allow_uids=root,65534 --check
conv 0 '^allow_gids=0\(root\)$' '' "$BITSLICED" --set allow_gids=0 --check
conv 0 "^allow_uids=$(id -u)(\\(|\$)" '' "$BITSLICED" --check
conv 0 "own uid only" '' "$BITSLICED" --check
conv 0 '^per_uid=clients 6 of 8, key slots 7 of 8, jobs in flight 3072 of 4096, queued bytes 1073741824, mapped bytes 4294967296$' '' \
  "$BITSLICED" --set max_clients=8 --set max_sessions_total=8 --set max_sessions_per_uid=8 --check
printf 'allow_uids = 0%508s,65534\n' '' >conv.conf
conv 2 '' 'conv\.conf:1: allow_uids: value of 515 bytes, longer than 511' "$BITSLICED" --config conv.conf --check
conv 2 '' 'allow_uids: value of 515 bytes' "$BITSLICED" --set "allow_uids=0$(printf '%508s' ''),65534" --check
head -c 300000 /dev/urandom >conv.in
conv 0 '' '' "$BITSLICE" seal -q --no-daemon -k key -o conv.bs conv.in
conv 1 '' 'exists: refused' "$BITSLICE" seal -q --no-daemon -k key -o conv.bs conv.in
conv 0 '' '' "$BITSLICE" seal -q --no-daemon -f -k key -o conv.bs conv.in
conv 1 '' 'is the input file' "$BITSLICE" seal -q --no-daemon -f -k key -o conv.in conv.in
cmp -s conv.in <("$BITSLICE" open -q --no-daemon -k key -o - conv.bs) || fail "open -o - differs"
"$BITSLICE" seal -q --no-daemon -k key -o - - <conv.in | "$BITSLICE" open -q --no-daemon -k key -o - |
  cmp -s conv.in - || fail "seal/open through stdin and stdout differ"
[ ! -e ./- ] || fail "'-o -' created a file named '-'"
conv 0 'cipher PRESENT-80' '' "$BITSLICE" bench --cipher present80-ctr --size-mib 1 --socket /nonexistent
conv 0 'cipher GIFT-128' '' "$BITSLICE" bench --cipher GIFT-CTR --size-mib 1 --socket /nonexistent
conv 0 '^found ffffffffffffffffffff' '' "$BITSLICE" keysearch -q -c PRESENT-80-CTR -k ffffffffffffffff0000 \
  -m 0000000000000000ffff -p 0000000000000000 -x e72c46c0f5945049 --part 0/1
conv 2 '' 'K/N' "$BITSLICE" keysearch -c PRESENT-80 -k 0 -m 0 -p 0 -x 0 --part 3/3
echo "ok: CLI conventions (help, version, errors, '-', --force, same-file, provider names)"
