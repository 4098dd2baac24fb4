#!/usr/bin/env bash
# The command-line conventions of every bitslice command and of bitsliced, as getopt_long gives
# them: short and long forms, --opt=value, --help and --version on standard output with exit 0,
# a usage error named on standard error with exit 2; numbers parsed whole and in range; errors
# that list the valid cipher names and say what to do about an unreachable daemon; keygen that
# leaves nothing on a failure; seal that refuses a terminal; the progress line for an unknown
# total; status --json. Short: no big files, no timing.
set -euo pipefail
: "${BITSLICE:?}" "${BITSLICED:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/bs-conv-XXXXXX")
dpid=
cleanup() {
  if [ -n "$dpid" ]; then kill -9 "$dpid" 2>/dev/null || true; wait "$dpid" 2>/dev/null || true; fi
  umount "$work/full" 2>/dev/null || true
  chmod -R u+rwx "$work" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"

# expected-rc stdout-regex stderr-regex command... (an empty regex: that stream must be empty)
conv() {
  local want=$1 out_re=$2 err_re=$3 rc=0
  shift 3
  "$@" >conv.out 2>conv.err </dev/null || rc=$?
  [ "$rc" -eq "$want" ] || fail "'$*': exit $rc, not $want: $(cat conv.err)"
  if [ -n "$out_re" ]; then
    grep -qE -- "$out_re" conv.out || fail "'$*': stdout lacks /$out_re/: $(head -3 conv.out)"
  else
    [ ! -s conv.out ] || fail "'$*': unexpected stdout: $(head -3 conv.out)"
  fi
  if [ -n "$err_re" ]; then
    grep -qE -- "$err_re" conv.err || fail "'$*': stderr lacks /$err_re/: $(cat conv.err)"
  else
    [ ! -s conv.err ] || fail "'$*': unexpected stderr: $(cat conv.err)"
  fi
}

# --help, --version, unknown options (both spellings) and missing arguments, everywhere.
for c in seal open keygen status bench keysearch; do
  conv 0 "^usage: bitslice $c" '' "$BITSLICE" "$c" --help
  conv 0 "^usage: bitslice $c" '' "$BITSLICE" "$c" -h
  conv 0 '^bitslice(-keysearch)? [0-9]+\.' '' "$BITSLICE" "$c" --version
  conv 2 '' "^bitslice $c: unknown option '--frobnicate'" "$BITSLICE" "$c" --frobnicate
  conv 2 '' "^bitslice $c: unknown option '--frobnicate'" "$BITSLICE" "$c" --frobnicate=3
  grep -q "^Run 'bitslice $c --help' for the options.$" conv.err || fail "$c: no pointer to --help"
  conv 2 '' "^bitslice $c: unknown option '-Z'" "$BITSLICE" "$c" -Z
done
conv 2 '' "^bitslice seal: missing argument of '--output'" "$BITSLICE" seal --output
conv 2 '' "^bitslice keygen: missing argument of '-o'" "$BITSLICE" keygen -o
conv 2 '' "^bitslice status: missing argument of '--socket'" "$BITSLICE" status --socket
conv 2 '' "^bitslice keysearch: missing argument of '--part'" "$BITSLICE" keysearch --part
conv 0 '^usage: bitsliced' '' "$BITSLICED" --help
conv 0 '^usage: bitsliced' '' "$BITSLICED" -h
conv 0 '^bitsliced [0-9]+\.' '' "$BITSLICED" --version
conv 0 '^bitsliced [0-9]+\.' '' "$BITSLICED" -V
conv 2 '' "^bitsliced: unknown option '--frobnicate'" "$BITSLICED" --frobnicate=1
conv 2 '' "^bitsliced: missing argument of '--socket'" "$BITSLICED" --socket
conv 2 '' "^bitsliced: unexpected argument 'extra'" "$BITSLICED" extra
echo "ok: --help, --version, unknown options and missing arguments in every command"

# Long and short forms, --opt=value and --opt value.
conv 0 "^socket=$work/a.sock backend=auto" '' "$BITSLICED" --socket="$work/a.sock" --check
conv 0 "^socket=$work/b.sock backend=auto" '' "$BITSLICED" -s "$work/b.sock" -t
conv 0 "^socket=$work/c.sock backend=cpu" '' "$BITSLICED" --set=backend=cpu -o "socket=$work/c.sock" --check
printf 'threads = 1\n' >d.conf
conv 0 'backend=auto' '' "$BITSLICED" --config=d.conf --check
conv 0 'backend=auto' '' "$BITSLICED" -c d.conf -t
conv 2 '' "^bitsliced: --set wants KEY=VALUE" "$BITSLICED" --set threads
conv 1 '' "cannot reach the daemon at $work/none.sock" "$BITSLICE" status --socket="$work/none.sock"
conv 1 '' "cannot reach the daemon at $work/none.sock" "$BITSLICE" status -s "$work/none.sock"
conv 0 '^cipher PRESENT-80' '' "$BITSLICE" bench --cipher=present80-ctr --size-mib=1 --socket="$work/none.sock"
conv 0 '^cipher GIFT-128' '' "$BITSLICE" bench --cipher GIFT-CTR --size-mib 1 --socket "$work/none.sock"
ks=(-k ffffffffff000fffffff -m 0000000000fff0000000 -p 0000000000000000 -x e72c46c0f5945049)
conv 0 '^found ffffffffffffffffffff$' '' "$BITSLICE" keysearch -q --cpu --cipher=PRESENT-80 --part=0/1 "${ks[@]}"
conv 0 '^found ffffffffffffffffffff$' '' "$BITSLICE" keysearch --quiet -c PRESENT-80-CTR --part 0/1 \
  --key=ffffffffff000fffffff --mask=0000000000fff0000000 --plaintext=0000000000000000 \
  --ciphertext=e72c46c0f5945049
conv 0 '' '' "$BITSLICE" keygen --output=k1
conv 0 '' '' "$BITSLICE" keygen -o k2
head -c 5000 /dev/urandom >five
conv 0 '' '' "$BITSLICE" seal -q --no-daemon --key-file=k1 --output=five.bs --chunk-log2=10 five
conv 0 '' '' "$BITSLICE" open -q --no-daemon -k k1 -o five.out five.bs
cmp -s five five.out || fail "seal/open with --opt=value forms: round trip differs"
echo "ok: long and short forms, --opt=value, in every command and the daemon"

# Numbers: whole, decimal, in range (atoi took '12x' as 12 and '-1' as a huge count).
conv 2 '' "--chunk-log2 wants 10\.\.24, got '12x'" "$BITSLICE" seal -q -k k1 -o x.bs --chunk-log2 12x five
conv 2 '' "--scrypt-log-n wants" "$BITSLICE" seal -q -k k1 -o x.bs --scrypt-log-n=-1 five
conv 2 '' "--size-mib wants 1\.\.4096, got '0'" "$BITSLICE" bench --size-mib 0
conv 2 '' "--size-mib wants" "$BITSLICE" bench --size-mib 99999999999999999999
conv 2 '' "--reps wants 1\.\.64" "$BITSLICE" bench --reps 65
conv 2 '' "-t wants" "$BITSLICE" keysearch -t 1x -c PRESENT-80 "${ks[@]}"
conv 2 '' "--part wants K/N" "$BITSLICE" keysearch --part 3/3 -c PRESENT-80 "${ks[@]}"
conv 2 '' "--part wants K/N" "$BITSLICE" keysearch --part 1/2x -c PRESENT-80 "${ks[@]}"
[ ! -e x.bs ] || fail "a refused seal left x.bs"
echo "ok: numbers parsed whole and in range"

# Unknown cipher names: the message lists the valid ones.
conv 2 '' "unknown cipher 'NOPE-CTR'; the ciphers: PRESENT-80, .*SKINNY-128-128.*SPEEDY-5-192" \
  "$BITSLICE" bench --cipher NOPE-CTR
conv 2 '' "unknown cipher 'AES'; key search supports PRESENT-80, PRESENT-128, GIFT-64, GIFT-128" \
  "$BITSLICE" keysearch -c AES "${ks[@]}"
echo "ok: unknown cipher names list the valid ones"

# A daemon this user may not reach: say why and what to do. Root passes permission checks, so
# as root the client runs as nobody (setpriv); either way the socket's directory refuses it.
mkdir locked
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' locked/s.sock
chmod 0 locked
if [ "$(id -u)" -eq 0 ]; then
  if command -v setpriv >/dev/null; then
    chmod 0755 "$work" # nobody reaches locked/ and is refused there
    conv 1 '' "cannot reach the daemon at $work/locked/s.sock: permission denied; are you in the daemon's group" \
      setpriv --reuid=65534 --regid=65534 --clear-groups "$BITSLICE" status --socket "$work/locked/s.sock"
    echo "ok: permission denied -> says which group"
  else
    echo "skip: permission message (root without setpriv)"
  fi
else
  conv 1 '' "cannot reach the daemon at $work/locked/s.sock: permission denied; are you in the daemon's group" \
    "$BITSLICE" status --socket "$work/locked/s.sock"
  echo "ok: permission denied -> says which group"
fi
chmod 0700 locked

# keygen: never over a file, nothing left on a failure (a full disk: needs root to mount a
# small tmpfs; skipped, and said so, where mounting is not allowed).
conv 1 '' 'k1 exists: refused' "$BITSLICE" keygen -o k1
conv 0 '^[0-9a-f]{64}$' '' "$BITSLICE" keygen -o -
[ "$(stat -c %a k1)" = 600 ] || fail "keygen: mode $(stat -c %a k1), not 600"
[ "$(wc -c <k1)" -eq 65 ] || fail "keygen: $(wc -c <k1) bytes"
mkdir ro
chmod 0500 ro
if [ "$(id -u)" -eq 0 ]; then
  conv 1 '' "cannot create a temporary file beside $work/ro/k3: Permission denied" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$BITSLICE" keygen -o "$work/ro/k3"
else
  conv 1 '' "cannot create a temporary file beside $work/ro/k3: Permission denied" "$BITSLICE" keygen -o "$work/ro/k3"
fi
[ -z "$(ls -A ro)" ] || fail "keygen into a read-only directory left: $(ls -A ro)"
mkdir full
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
  head -c 1M /dev/zero >full/fill 2>/dev/null || true
  conv 1 '' 'No space left on device' "$BITSLICE" keygen -o full/key
  left=$(ls -A full)
  umount full
  [ "$left" = fill ] || fail "keygen on a full disk left: $left"
  echo "ok: keygen on a full disk -> clear error, no key file, no temporary file"
else
  echo "skip: keygen full-disk check (cannot mount a tmpfs here)"
fi
ls k1.tmp-* k3* >/dev/null 2>&1 && fail "keygen left a temporary file"

# seal to a terminal: refused unless --force; open's plaintext is fine there. The progress line
# from standard input (total unknown): bytes and rate, no empty bar and no "/ 0.0 MiB".
head -c $((3 << 20)) /dev/urandom >three
python3 - "$BITSLICE" <<'PY' || fail "terminal checks"
import os, pty, select, signal, subprocess, sys, time
bitslice = sys.argv[1]

def run(args, stdin=None, out_tty=True, err_tty=False):
    m, s = pty.openpty()
    p = subprocess.Popen(args, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                         stdout=s if out_tty else open('tty-run.out', 'wb'),
                         stderr=s if err_tty else subprocess.PIPE)
    os.close(s)
    tty = b''
    while True:
        r, _, _ = select.select([m], [], [], 30)
        if not r:
            p.kill(); sys.exit('%s: no end' % args)
        try:
            b = os.read(m, 65536)
        except OSError:
            break
        if not b:
            break
        tty += b
    out = open('tty-run.out', 'rb').read() if not out_tty else b''
    err = p.stderr.read() if not err_tty else b''
    rc = p.wait(30)
    os.close(m)
    return rc, tty, out, err

rc, tty, _, err = run([bitslice, 'seal', '-q', '--no-daemon', '-k', 'k1', '-o', '-', 'five'])
if rc != 2 or b'refusing to write ciphertext to a terminal' not in err or tty:
    sys.exit('seal -o - on a terminal: rc %d, %d bytes on it, %r' % (rc, len(tty), err))
rc, tty, _, err = run([bitslice, 'seal', '-q', '--no-daemon', '-f', '-k', 'k1', '-o', '-', 'five'])
if rc != 0 or len(tty.replace(b'\r\n', b'\n')) < 5000:
    sys.exit('seal --force -o - on a terminal: rc %d, %d bytes, %r' % (rc, len(tty), err))
rc, tty, _, err = run([bitslice, 'open', '-q', '--no-daemon', '-k', 'k1', '-o', '-', 'five.bs'])
if rc != 0:
    sys.exit('open -o - on a terminal: rc %d, %r' % (rc, err))
print('ok: seal refuses a terminal unless --force; open writes to one')

# A pipe, not the file: its size is unknown.
rc, tty, out, _ = run(['sh', '-c', 'cat three | "$0" seal --no-daemon -k k1 -o -', bitslice],
                      out_tty=False, err_tty=True)
last = tty.replace(b'\r\n', b'\n').split(b'\r')[-1].strip().decode()
if rc != 0 or len(out) < 3 << 20:
    sys.exit('seal from stdin with progress: rc %d, %d bytes' % (rc, len(out)))
if '/ 0.0' in last or '[' in last or not last.startswith('3.0 MiB') or 'MiB/s' not in last:
    sys.exit('progress with an unknown total: %r' % last)
print('ok: progress from standard input: %s' % last)
rc, tty, out, _ = run([bitslice, 'seal', '--no-daemon', '-k', 'k1', '-o', '-', 'three'],
                      out_tty=False, err_tty=True)
last = tty.replace(b'\r\n', b'\n').split(b'\r')[-1].strip().decode()
if rc != 0 or '3.0 / 3.0 MiB' not in last or '#' * 30 not in last or 'ETA' not in last:
    sys.exit('progress with a known total: %r' % last)
print('ok: progress with a known total: %s' % last)

# keysearch's progress line, interrupted (^C): the line is ended before the shell's prompt.
m, s = pty.openpty()
p = subprocess.Popen([bitslice, 'keysearch', '--cpu', '-t', '1', '-c', 'PRESENT-80', '-k',
                      '00000000000000000000', '-m', '0000000000ffffffffff', '-p',
                      '0000000000000000', '-x', 'e72c46c0f5945049'],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=s)
os.close(s)
buf, deadline = b'', time.monotonic() + 30
while b'keys/s' not in buf and time.monotonic() < deadline:
    r, _, _ = select.select([m], [], [], 1)
    if r:
        buf += os.read(m, 4096)
if b'keys/s' not in buf:
    p.kill(); sys.exit('keysearch: no progress line: %r' % buf)
p.send_signal(signal.SIGINT)
try:
    rc = p.wait(30)
except subprocess.TimeoutExpired:
    p.kill(); sys.exit('keysearch did not stop on SIGINT')
while True:
    r, _, _ = select.select([m], [], [], 0.5)
    if not r:
        break
    try:
        b = os.read(m, 4096)
    except OSError:
        break
    if not b:
        break
    buf += b
os.close(m)
if rc != -signal.SIGINT or not buf.endswith(b'\n'):
    sys.exit('keysearch ^C: rc %d, the line ends %r' % (rc, buf[-40:]))
print('ok: keysearch ^C ends its progress line')
PY

# status --json: one JSON object with the text's keys, integers as numbers.
sock=$work/run/bitsliced.sock
"$BITSLICED" --socket "$sock" --set backend=cpu --set threads=1 2>daemon.log &
dpid=$!
# Until it answers (the socket file exists from bind(), a moment before listen()).
for _ in $(seq 200); do "$BITSLICE" status --socket "$sock" >/dev/null 2>&1 && break; sleep 0.05; done
"$BITSLICE" status --socket "$sock" >/dev/null 2>&1 || fail "daemon did not start: $(cat daemon.log)"
"$BITSLICE" status --socket "$sock" >status.txt || fail "status"
"$BITSLICE" status --json -s "$sock" >status.json || fail "status --json"
python3 - status.txt status.json "$sock" <<'PY' || fail "status --json: $(cat status.json)"
import json, sys
text = dict(l.split('=', 1) for l in open(sys.argv[1]).read().splitlines())
j = json.load(open(sys.argv[2]))
assert j['socket'] == sys.argv[3], j['socket']
assert j['backend'] == 'cpu' and isinstance(j['bytes_served'], int), j
assert isinstance(j['protocol'], int) and isinstance(j['batch_hist'], str), j
assert set(j) == set(text), set(j) ^ set(text)
for k in ('socket', 'protocol', 'backend', 'backend_info', 'max_clients', 'batch_hist'):
    assert str(j[k]) == text[k], (k, j[k], text[k])
print('ok: status --json has the %d keys of the text, integers as numbers' % len(j))
PY
kill -TERM "$dpid"
wait "$dpid" || fail "daemon exit status $?"
dpid=
echo "ok: all CLI conventions"
