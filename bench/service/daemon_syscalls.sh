#!/usr/bin/env bash
# (Used for bench/RESULTS.md: issue 26, "Daemon system calls per 1 MiB request".)
# Usage: bench/service/daemon_syscalls.sh BUILD [MiB=256] [-- DAEMON_SETTINGS...]
# Starts BUILD's bitsliced (CPU backend unless the settings say otherwise), counts its system
# calls with perf's syscall tracepoints (no ptrace, so the daemon runs at its own pace) while
# BUILD's bench_client streams MiB of RIJNDAEL-256 keystream in 1 MiB windows, and prints the
# requests, batches, system calls (futex apart) and calls per request, beside what the daemon
# counts itself (STATUS syscalls_total, which leaves out connection set-up and lock contention),
# with the client's line.
# Needs perf with tracepoint access (root, or kernel.perf_event_paranoid <= -1).
set -euo pipefail
b=${1:?build directory}
shift
mib=256
if [ $# -gt 0 ] && [ "$1" != -- ]; then
  mib=$1
  shift
fi
[ "${1:-}" = -- ] && shift
sets=()
for s in "$@"; do sets+=(--set "$s"); done
d=$(mktemp -d)
sock=$d/run/s.sock
"$b/service/bitsliced" --socket "$sock" --set backend=cpu "${sets[@]}" 2>"$d/log" &
dp=$!
trap 'kill $dp 2>/dev/null; wait $dp 2>/dev/null; rm -rf "$d"' EXIT
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
perf stat -x, -e raw_syscalls:sys_enter -e syscalls:sys_enter_futex -p "$dp" -o "$d/perf" &
pp=$!
sleep 0.5
client=$("$b/bench/service/bench_client" "$sock" stream RIJNDAEL-256 "$mib")
sleep 0.2
kill -INT "$pp"
wait "$pp" || true
st=$("$b/tools/bitslice" status --socket "$sock")
req=$(printf '%s\n' "$st" | sed -n 's/^keystream_requests=//p')
bat=$(printf '%s\n' "$st" | sed -n 's/^batches_total=//p')
sc=$(sed -n 's/^\([0-9]*\),.*raw_syscalls:sys_enter.*/\1/p' "$d/perf")
fx=$(sed -n 's/^\([0-9]*\),.*sys_enter_futex.*/\1/p' "$d/perf")
own=$(printf '%s\n' "$st" | sed -n 's/^syscalls_total=//p')
awk -v r="$req" -v b="$bat" -v s="$sc" -v f="$fx" -v o="${own:-0}" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
  'BEGIN {printf "requests %d, batches %d, system calls %d (futex %d): %.2f a request (STATUS syscalls_total %d: %.2f); load %s\n", r, b, s, f, s / r, o, o / r, l}'
echo "$client"
