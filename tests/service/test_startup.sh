#!/usr/bin/env bash
# The start-up hardening calls' results are checked (issue 13, item 6): each call is made to fail
# for real by a seccomp filter (seccomp_fail, errno EXFULL, which none of them returns by itself)
# and the daemon must refuse to start, naming the call and the error, before it listens; the
# soft ones (mlock with memlock=try, MADV_DONTDUMP) must warn and start. bitslice refuses to run
# a command when it cannot turn core dumps off. A control filter that matches nothing the daemon
# calls shows that the filter alone changes nothing.
set -euo pipefail
: "${BITSLICED:?}" "${BITSLICE:?}" "${SECCOMP_FAIL:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/bs-startup-XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  [ -f "$work/log" ] && sed 's/^/  log: /' "$work/log" >&2
  exit 1
}
sock=$work/run/s.sock
why="Exchange full"

# Whether seccomp filters work here at all (a container may forbid them): skip, do not pass.
if ! "$SECCOMP_FAIL" prctl:0=9999 -- /bin/true; then
  rc=$?
  [ "$rc" = 77 ] && { echo "SKIP: seccomp filters are not available here"; exit 77; }
  fail "seccomp_fail exited $rc on a harmless filter"
fi

# refuses RULES... -- MESSAGE [daemon args]: the daemon exits 1 with MESSAGE and never listens.
refuses() {
  local rules=()
  while [ "$1" != -- ]; do rules+=("$1"); shift; done
  shift
  local msg=$1
  shift
  rm -rf "$work/run"
  [ $# -gt 0 ] && [ "$1" = --dir-755 ] && { mkdir -m 755 "$work/run"; shift; }
  set +e
  timeout 20 "$SECCOMP_FAIL" "${rules[@]}" -- "$BITSLICED" --socket "$sock" "$@" >"$work/log" 2>&1
  local rc=$?
  set -e
  [ "$rc" = 1 ] || fail "${rules[*]}: the daemon exited $rc, not 1"
  grep -qF "level=error event=start reason=\"$msg" "$work/log" ||
    fail "${rules[*]}: no start error \"$msg\""
  ! grep -q "event=ready\|event=listen" "$work/log" || fail "${rules[*]}: the daemon listened"
  [ ! -e "$sock" ] || fail "${rules[*]}: the socket exists"
  echo "ok: ${rules[*]} -> refuses: $msg"
}

# starts RULES... -- LOG_PATTERN [daemon args]: it starts, serves status and logs LOG_PATTERN.
starts() {
  local rules=()
  while [ "$1" != -- ]; do rules+=("$1"); shift; done
  shift
  local pat=$1
  shift
  rm -rf "$work/run"
  # The log is emptied here, not by the background job's own redirection: that one runs in the
  # child, later, and until then the loop below would read the previous daemon's ready line.
  : >"$work/log"
  "$SECCOMP_FAIL" "${rules[@]}" -- "$BITSLICED" --socket "$sock" "$@" >>"$work/log" 2>&1 &
  pid=$!
  # Up to 60 s: a sanitized daemon on a loaded machine took over 10 s; the loop ends at ready.
  local until=$((SECONDS + 60))
  while [ $SECONDS -lt $until ]; do
    grep -q "event=ready" "$work/log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  grep -q "event=ready" "$work/log" || fail "${rules[*]}: the daemon did not start"
  "$BITSLICE" status --socket "$sock" >"$work/status" || fail "${rules[*]}: no status"
  grep -q "$pat" "$work/log" || fail "${rules[*]}: no log line matching $pat"
  kill -TERM "$pid"
  wait "$pid" || fail "${rules[*]}: the daemon exited $? after SIGTERM"
  pid=
  echo "ok: ${rules[*]} -> starts, logs: $pat"
}

starts prctl:0=9999 -- "event=ready"
sanitized=0
# gcc links AddressSanitizer's runtime as a shared library, clang statically: look for both.
if grep -q libasan <<<"$(ldd "$BITSLICED" 2>/dev/null || true)" ||
  grep -q ' __asan_init$' <<<"$(nm "$BITSLICED" 2>/dev/null || true)"; then
  sanitized=1
fi
if [ "$sanitized" = 1 ]; then
  # AddressSanitizer's mlock is a stub that returns 0 and locks nothing: the daemon must not
  # claim the lock (it checks VmLck), and must say why.
  grep -q "keys_locked=0" "$work/status" ||
    fail "a sanitized daemon claims locked keys, though its mlock locks nothing"
  grep -q "event=memlock locked=0 reason=\"mlock returned 0 but VmLck" "$work/log" ||
    fail "a sanitized daemon does not say why its keys are not locked"
  echo "ok: a sanitized daemon reports keys_locked=0 (its mlock is a stub; VmLck checked)"
else
  grep -q "keys_locked=1" "$work/status" || [ "$(id -u)" != 0 ] ||
    fail "the control run did not lock its keys as root"
fi

# AddressSanitizer's runtime reads and sets resource limits itself before main and aborts when
# it cannot, and replaces mlock with a stub that calls nothing: under it, the rlimit and mlock
# cases cannot reach the daemon's own checks and are skipped (the plain build runs them).
rlimit_ok=1
if [ "$sanitized" = 1 ]; then
  rlimit_ok=0
  echo "skip: the rlimit and mlock cases (a sanitized daemon: its runtime answers them itself)"
fi
[ "$rlimit_ok" = 0 ] || refuses prlimit64:1=4 setrlimit:0=4 -- "setrlimit(RLIMIT_CORE, 0): $why"
refuses prctl:0=4 -- "prctl(PR_SET_DUMPABLE, 0): $why"
refuses prctl:0=3 -- "prctl(PR_GET_DUMPABLE): $why"
refuses rt_sigaction:0=13 -- "ignoring SIGPIPE: $why"
[ "$rlimit_ok" = 0 ] || refuses prlimit64:1=7 getrlimit:0=7 -- "getrlimit(RLIMIT_NOFILE): $why"
refuses fchmod fchmodat -- "chmod 0700 $work/run: $why" --dir-755
# A failed listen() leaves no socket file behind (the socket is bound under a temporary name and
# linked into place only once it listens: a file that is there accepts).
refuses listen -- "bind/listen $sock: $why"
[ -z "$(ls -A "$work/run")" ] || fail "listen failed: left $(ls -A "$work/run")"
keys=$("$BITSLICED" --socket "$sock" --set memlock=required --check >/dev/null && echo ok)
[ "$keys" = ok ] || fail "--check"
if [ "$rlimit_ok" = 1 ]; then
  refuses mlock mlock2 -- "mlock of" --set memlock=required
  grep -qF "for keys: $why (raise RLIMIT_MEMLOCK" "$work/log" || fail "the mlock error names no cause"

  starts mlock mlock2 -- 'event=memlock locked=0' --set memlock=try
  grep -q "keys_locked=0" "$work/status" || fail "status does not say that the keys are not locked"
fi
# MADV_DONTDUMP is 16.
starts madvise:2=16 -- "event=dontdump reason=\"madvise(MADV_DONTDUMP) of the key pool: $why"

# bitslice: no key material is handled when core dumps cannot be turned off.
cd "$work"
rule_sets=("prctl:0=4")
[ "$rlimit_ok" = 0 ] || grep -q libasan <<<"$(ldd "$BITSLICE" 2>/dev/null || true)" || rule_sets+=("prlimit64:1=4 setrlimit:0=4")
for rules in "${rule_sets[@]}"; do
  set +e
  # shellcheck disable=SC2086
  "$SECCOMP_FAIL" $rules -- "$BITSLICE" keygen -o key 2>"$work/err"
  rc=$?
  set -e
  [ "$rc" = 1 ] || fail "bitslice keygen under $rules exited $rc, not 1"
  grep -qF "bitslice: cannot turn core dumps off: $why" "$work/err" || fail "bitslice: $(cat "$work/err")"
  [ ! -e key ] || fail "bitslice keygen wrote a key under $rules"
  echo "ok: bitslice under $rules -> refuses"
done
"$SECCOMP_FAIL" prctl:0=9999 -- "$BITSLICE" keygen -o key || fail "bitslice keygen under the control filter"
[ -s key ] || fail "bitslice keygen under the control filter wrote no key"
# A socket in a shared directory (like /tmp or /run): refused, the directory's mode left alone
# (the daemon once made such a directory 0700, locking every other user out of it).
shared=$work/shared
mkdir -m 1777 "$shared"
touch "$shared/other"
set +e
timeout 20 "$BITSLICED" --socket "$shared/s.sock" >"$work/log" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "shared directory: the daemon exited $rc, not 1"
grep -qF "holds other files: it is not the socket's own directory" "$work/log" ||
  fail "shared directory: no start error"
[ "$(stat -c %a "$shared")" = 1777 ] || fail "shared directory: mode now $(stat -c %a "$shared")"
[ ! -e "$shared/s.sock" ] || fail "shared directory: the socket exists"
echo "ok: a socket in a shared directory (1777, other files) -> refuses, the mode stays 1777"
echo "start-up hardening: every failed call refuses (or warns, where soft), by name and errno"
