#!/usr/bin/env bash
# bitslice seal/open with several chunk workers (--threads N), in-process and through a daemon:
#  - what N workers seal, one opens, and the other way round, byte for byte; open with N and
#    with 1 write the same bytes;
#  - a tampered chunk is refused with its index, and `open -o -` writes whole verified chunks
#    from the start and nothing from it on; `open -o FILE` leaves no file;
#  - a file cut after a whole chunk is refused as truncated;
#  - a full disk: seal and open fail with the reason and leave no file (needs root to mount a
#    small tmpfs; skipped, and said so, elsewhere);
#  - --threads out of range is refused.
set -euo pipefail
: "${BITSLICE:?}" "${BITSLICED:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/bs-seal-t-XXXXXX")
sock=$work/run/bitsliced.sock
dpid=
cleanup() {
  umount "$work/full" 2>/dev/null || true
  if [ -n "$dpid" ]; then
    kill "$dpid" 2>/dev/null || true
    wait "$dpid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$BITSLICED" --socket "$sock" 2>"$work/daemon.log" &
dpid=$!
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
[ -S "$sock" ] || fail "daemon did not start"
cd "$work"
"$BITSLICE" keygen -o key
# 300 chunks of 4 KiB and a short one: many chunks in flight at once with any N.
cs=4096
head -c $((cs * 300 + 123)) /dev/urandom >in
rec=$((cs + 32))

# Round trips: sealed with N, opened with M, in-process and through the daemon.
for n in 1 2 5; do
  "$BITSLICE" seal -q --no-daemon --threads "$n" --chunk-log2 12 -k key -o "local$n.bs" in
  "$BITSLICE" seal -q -v --socket "$sock" --threads "$n" --chunk-log2 12 -k key \
    -o "daemon$n.bs" in 2>"daemon$n.err"
  grep -q "chunks from daemon:cpu, 0 in-process" "daemon$n.err" ||
    fail "seal --threads $n: the daemon did not serve every chunk: $(cat "daemon$n.err")"
  [ "$(stat -c %s "local$n.bs")" -eq $((80 + rec * 300 + 123 + 32)) ] || fail "local$n.bs size"
done
for f in local1 local2 local5 daemon1 daemon2 daemon5; do
  for m in 1 3; do
    "$BITSLICE" open -q --no-daemon --threads "$m" -k key -o "$f.$m.out" "$f.bs"
    cmp -s in "$f.$m.out" || fail "$f.bs opened with --threads $m differs from the input"
  done
  "$BITSLICE" open -q -v --socket "$sock" --threads 4 -k key -o "$f.d.out" "$f.bs" 2>open.err
  grep -q "chunks from daemon:cpu, 0 in-process" open.err ||
    fail "open --threads 4: the daemon did not serve every chunk: $(cat open.err)"
  cmp -s in "$f.d.out" || fail "$f.bs opened through the daemon with --threads 4 differs"
done
echo "ok: sealed with 1, 2, 5 threads (in-process and daemon), opened with 1, 3, 4: exact"

# A tampered chunk (chunk 37 of 301): refused; nothing from it on is written.
# One bit of it flipped (an overwrite could write the byte that was there).
python3 - local5.bs bad.bs $((80 + rec * 37 + 100)) <<'EOF'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
data[int(sys.argv[3])] ^= 1
open(sys.argv[2], 'wb').write(data)
EOF
for m in 1 4; do
  for via in "--no-daemon" "--socket $sock"; do
    # shellcheck disable=SC2086
    if "$BITSLICE" open -q $via --threads "$m" -k key -o - bad.bs >bad.out 2>bad.err; then
      fail "open of a tampered file succeeded (--threads $m $via)"
    fi
    grep -q "chunk 37 failed authentication" bad.err ||
      fail "tampered, --threads $m $via: $(cat bad.err)"
    # What was written when open stopped: whole verified chunks from the start, none past 36.
    got=$(stat -c %s bad.out)
    [ "$got" -le $((cs * 37)) ] && [ $((got % cs)) -eq 0 ] ||
      fail "tampered, --threads $m $via: $got bytes written (at most 37 whole chunks)"
    cmp -s bad.out <(head -c "$got" in) || fail "tampered: the chunks written differ"
    # shellcheck disable=SC2086
    if "$BITSLICE" open -q $via --threads "$m" -k key -o bad.file bad.bs 2>/dev/null; then
      fail "open of a tampered file to a file succeeded"
    fi
    for x in bad.file*; do
      [ ! -e "$x" ] || fail "a tampered open left $x"
    done
  done
done
echo "ok: a tampered chunk is refused by name, only the verified chunks before it written"

# Cut after a whole chunk (the final short chunk gone): truncated.
head -c $((80 + rec * 300)) local5.bs >cut.bs
for m in 1 4; do
  if "$BITSLICE" open -q --no-daemon --threads "$m" -k key -o - cut.bs >cut.out 2>cut.err; then
    fail "open of a truncated file succeeded (--threads $m)"
  fi
  grep -q "truncated: the file ends after chunk 299 without its final chunk" cut.err ||
    fail "truncated, --threads $m: $(cat cut.err)"
done
echo "ok: a file cut after a whole chunk is refused as truncated"

mkdir -p full
if mount -t tmpfs -o size=256k tmpfs full 2>/dev/null; then
  head -c $((1 << 20)) /dev/urandom >onemeg
  "$BITSLICE" seal -q --no-daemon -k key -o onemeg.bs onemeg
  for m in 1 4; do
    if "$BITSLICE" seal -q --no-daemon --threads "$m" --chunk-log2 12 -k key -o full/x.bs onemeg \
      2>seal_err; then
      fail "seal --threads $m onto a full disk succeeded"
    fi
    grep -q 'No space left on device' seal_err || fail "seal --threads $m: $(cat seal_err)"
    if "$BITSLICE" open -q --no-daemon --threads "$m" -k key -o full/x onemeg.bs 2>open_err; then
      fail "open --threads $m onto a full disk succeeded"
    fi
    grep -q 'No space left on device' open_err || fail "open --threads $m: $(cat open_err)"
    left=$(ls -A full)
    [ -z "$left" ] || fail "files left on the full disk: $left"
  done
  umount full
  echo "ok: full disk with 1 and 4 threads -> clear error, nothing left behind"
else
  echo "skip: full-disk check (cannot mount a tmpfs here)"
fi

for bad in 0 65 x; do
  if "$BITSLICE" seal -q --no-daemon --threads "$bad" -k key -o never.bs in 2>t.err; then
    fail "--threads $bad accepted"
  fi
  grep -q -- "--threads wants 1..64" t.err || fail "--threads $bad: $(cat t.err)"
done
echo "ok: --threads out of range refused"
