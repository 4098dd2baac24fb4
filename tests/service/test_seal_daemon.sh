#!/usr/bin/env bash
# bitslice seal when the daemon stops answering mid-file, and the rename's durability:
#  - the daemon is stopped (SIGSTOP) after it served the first chunks of a piped input: seal
#    must finish within a bound (one window's wait, 5 s, then in-process; it was 30 s), with the
#    exact output, and -v's summary must name the daemon for the chunks it served (it said
#    "from in-process" once the daemon had been dropped);
#  - seal and open fsync the destination's directory after the rename (checked with strace,
#    where it can trace; skipped otherwise).
set -euo pipefail
: "${BITSLICE:?}" "${BITSLICED:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/bs-seal-d-XXXXXX")
sock=$work/run/bitsliced.sock
dpid=
cleanup() {
  if [ -n "$dpid" ]; then
    kill -CONT "$dpid" 2>/dev/null || true
    kill -9 "$dpid" 2>/dev/null || true
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
head -c $((64 * 1024 * 16)) /dev/urandom >in # 16 chunks of 64 KiB

served() { # the daemon's bytes_served (0 when it does not answer)
  local s
  s=$("$BITSLICE" status --socket "$sock" 2>/dev/null) || s=
  s=$(printf '%s\n' "$s" | sed -n 's/^bytes_served=//p')
  echo "${s:-0}"
}

# The producer: 2 chunks, then (once the daemon has served something) stop it, then the rest.
{
  head -c $((64 * 1024 * 2)) in
  for _ in $(seq 400); do [ "$(served)" -gt 0 ] && break; sleep 0.05; done
  kill -STOP "$dpid"
  tail -c +$((64 * 1024 * 2 + 1)) in
} | timeout 20 "$BITSLICE" seal -q -v --socket "$sock" -k key --chunk-log2 16 -o in.bs - \
  2>seal.err || fail "seal with a daemon stopped mid-file: rc $? (over 20 s?): $(cat seal.err)"
kill -CONT "$dpid"
"$BITSLICE" open -q --no-daemon -k key -o in.out in.bs || fail "open"
cmp -s in in.out || fail "output differs"
summary=$(grep 'keystream: ' seal.err) || fail "no -v summary: $(cat seal.err)"
case $summary in
  *"chunks from daemon:cpu, "*) ;;
  *) fail "the summary does not name the daemon for its chunks: $summary" ;;
esac
case $summary in
  *" 0 in-process"*) fail "nothing was computed in-process after the stop: $summary" ;;
esac
echo "ok: daemon stopped mid-file: seal finished, exact, and says: ${summary#bitslice: }"

# The directory entry made durable: rename, then fsync of the directory.
# Probed with the tool itself: a sanitizer build's leak check refuses to run under ptrace.
if strace -f -o /dev/null "$BITSLICE" --version >/dev/null 2>&1; then
  mkdir -p d
  for cmd in seal open; do
    if [ "$cmd" = seal ]; then src=in; dst=d/x.bs; else src=d/x.bs; dst=d/x.out; fi
    # LeakSanitizer cannot run under ptrace: off for the traced run of a sanitized build
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
      strace -f -e trace=openat,fsync,rename,renameat,renameat2 -o "st.$cmd" \
      "$BITSLICE" "$cmd" -q --no-daemon -k key -o "$dst" "$src" || fail "$cmd under strace"
    # the fd the directory was opened as, after the rename; then its fsync
    # after the rename: the directory opened as fd N, then fsync(N)
    ok=$(awk '/rename(at2?)?\(/ {r = 1}
      r && fd == "" && /openat\(.*"([^"]*\/)?d", [^)]*O_DIRECTORY/ {fd = $NF; next}
      fd != "" && index($0, "fsync(" fd ")") {print "yes"; exit}' "st.$cmd")
    [ "$ok" = yes ] || fail "$cmd: no fsync of the directory after the rename: $(grep -E 'rename|fsync|O_DIRECTORY' "st.$cmd")"
  done
  cmp -s in d/x.out || fail "seal/open in d differ"
  echo "ok: seal and open fsync the directory after the rename"
else
  echo "skip: strace cannot trace the tool here (directory fsync not checked)"
fi
