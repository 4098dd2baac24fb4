#!/usr/bin/env bash
# bitslice itself, like bitsliced, keeps keys and plaintext out of core files: while `open` runs
# (blocked reading its input from a FIFO, with a chunk already verified) its core limit is 0 and
# it is not dumpable (as another uid, its /proc entries then belong to root), and SIGQUIT, like
# SIGINT, removes the temporary output that holds the verified plaintext. The dumpable check
# needs root and setpriv (skipped otherwise); the core limit check needs a shell whose hard core
# limit is above 0 (so that the limit the program shows is its own doing). And -o onto a symlink
# (to stdout, to a file) or "-" writes through, leaving the link a link.
set -euo pipefail
: "${BITSLICE:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/bs-harden-XXXXXX")
pid=
cleanup() {
  exec 3>&- 2>/dev/null || true
  if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
chmod 755 "$work"
cd "$work"
"$BITSLICE" keygen -o key
head -c 3000 /dev/urandom >pt
"$BITSLICE" seal -q --no-daemon --chunk-log2 10 -k key -o pt.bs pt
# Header (128 bytes, docs/stream-format.md) and the first chunk record (1 KiB + 32-byte tag).
hdr=$(( $(stat -c %s pt.bs) - 3000 - 3 * 32 ))
first=$(( hdr + 1024 + 32 ))

ulimit -S -c "$(ulimit -H -c)" 2>/dev/null || true
core_before=$(ulimit -c)

as_other=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  as_other=(setpriv --reuid 65534 --regid 65534 --clear-groups)
  chmod 644 key pt.bs
  mkdir out && chmod 777 out
else
  mkdir out
fi

for sig in QUIT INT; do
  rm -f fifo out/*
  mkfifo fifo
  "${as_other[@]}" "$BITSLICE" open -q --no-daemon -k key -o out/pt.back fifo &
  pid=$!
  exec 3>fifo
  head -c "$first" pt.bs >&3
  for _ in $(seq 200); do
    compgen -G "out/pt.back.tmp-*" >/dev/null && break
    sleep 0.05
  done
  compgen -G "out/pt.back.tmp-*" >/dev/null || fail "open made no temporary file"
  sleep 0.3 # the first chunk verified and handed to the writer
  limit=$(awk '/Max core file size/ { print $5 }' "/proc/$pid/limits")
  if [ "$core_before" != 0 ]; then
    [ "$limit" = 0 ] || fail "bitslice open runs with a core limit of $limit (shell: $core_before)"
  else
    echo "note: the hard core limit here is 0; the core limit check proves nothing"
  fi
  if [ ${#as_other[@]} -gt 0 ]; then
    owner=$(stat -c %u "/proc/$pid/status")
    [ "$owner" = 0 ] || fail "bitslice open (uid 65534) is dumpable: /proc/$pid belongs to uid $owner"
  fi
  kill -s "$sig" "$pid"
  rc=0
  wait "$pid" || rc=$?
  pid=
  exec 3>&-
  [ "$rc" -ne 0 ] || fail "open exited 0 after SIG$sig"
  if compgen -G "out/pt.back*" >/dev/null; then
    fail "SIG$sig left $(ls out/)"
  fi
  echo "ok: SIG$sig: open stopped (status $rc), no temporary plaintext left; core limit $limit"
done
[ ${#as_other[@]} -gt 0 ] && echo "ok: not dumpable (its /proc entries belong to root, not uid 65534)"
[ ${#as_other[@]} -gt 0 ] || echo "note: not root or no setpriv: the dumpable check was skipped"

# -o onto links and non-regular files: the output goes where the link points, and the link stays
# a link (a temporary file renamed over it would replace it: as root, /dev/stdout itself).
# The targets exist (the shell made 'got'), so --force (bitslice never replaces an existing
# regular file without it; without it the refusal is checked below).
ln -s /proc/self/fd/1 to_stdout
"$BITSLICE" open -q --no-daemon -f -k key -o to_stdout pt.bs >got || fail "open -o a link to stdout"
cmp -s got pt || fail "open -o a link to stdout: not the plaintext on stdout"
[ -L to_stdout ] || fail "open -o a link to stdout replaced the link"
"$BITSLICE" open -q --no-daemon -k key -o - pt.bs >got2 || fail "open -o -"
cmp -s got2 pt || fail "open -o -: not the plaintext"
: >target
ln -s target to_file
"$BITSLICE" open -q --no-daemon -k key -o to_file pt.bs 2>/dev/null &&
  fail "open -o a link to an existing file without --force"
[ -L to_file ] && [ ! -s target ] || fail "a refused open changed the link or its target"
"$BITSLICE" open -q --no-daemon -f -k key -o to_file pt.bs || fail "open -o a link to a file"
[ -L to_file ] && cmp -s target pt || fail "open -o a link to a file: link replaced or wrong"
echo "ok: -o onto a link to stdout, -, and a link to a file: written through, links kept"
