#!/usr/bin/env bash
# The daemon on a GPU, end to end (a step of gpu/device-check.sh): starts BUILD's bitsliced with
# backend=cuda on a private socket, checks that it chose the GPU, encrypts one file with
# `openssl enc -provider bitslice` in-process and through the daemon for each CTR cipher the GPU
# serves and compares them byte for byte, seals and opens a file through it, measures
# `bitslice bench` against it, times the user's path on a big tmpfs file (cp; seal and open, and
# openssl enc, each through the daemon and in-process; BSGPU_BIG_MIB, default 4096) and the
# daemon stream at 1, 4 and 8 client threads (bench/service/bench_client), then again with the
# daemon's threads sleeping while they wait for the device (BSGPU_SYNC=blocking), and ends with its
# STATUS (batches, blocks, CPU fallbacks, CUDA errors, copy refusals, self-check failures: the last five must
# be 0). Writes OUT/daemon.md (Markdown rows) and
# OUT/bitsliced.log. Exit 0: all matched; 77: no GPU here (skipped); 1: a failure, said on stderr.
#
#   gpu/device-daemon.sh BUILD OUT
set -uo pipefail
build=${1:?usage: gpu/device-daemon.sh BUILD OUT}
out=${2:?usage: gpu/device-daemon.sh BUILD OUT}
# BSGPU_DAEMON_BACKEND=cpu runs the same steps on the CPU backend (to test this script without a GPU).
backend=${BSGPU_DAEMON_BACKEND:-cuda}
if [ "$backend" = cuda ] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "device-daemon: no GPU (nvidia-smi -L failed): skipped"
  exit 77
fi
daemon="$build/service/bitsliced"
tool="$build/tools/bitslice"
for f in "$daemon" "$tool" "$build/provider/bitslice.so"; do
  [ -e "$f" ] || { echo "device-daemon: $f was not built" >&2; exit 1; }
done
command -v openssl >/dev/null || { echo "device-daemon: no openssl command" >&2; exit 1; }
work=$(mktemp -d /tmp/bitslice-daemon.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "device-daemon: $*" >&2; exit 1; }
# Every daemon row measures the daemon path: offload forced (the rule, bsd_offload.h, would
# decide per cipher; the decisions it makes on this machine are recorded at the end).
export BITSLICE_OFFLOAD=always
md="$out/daemon.md"
: >"$md"
sock="$work/run/bitsliced.sock"
mkdir -m 0700 "$work/run"
# start_daemon SOCKET LOG [VAR=VALUE...]: the daemon on SOCKET (its pid in $pid), the environment
# given, up within 20 s or the step fails with its log's tail.
start_daemon() {
  local s=$1 log=$2
  shift 2
  env "$@" "$daemon" --socket "$s" --set backend="$backend" >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 200); do [ -S "$s" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  [ -S "$s" ] || { tail -20 "$log" >&2; fail "the daemon${*:+ ($*)} did not start"; }
}
# stop_daemon WHAT: SIGTERM to the daemon in $pid, which must exit with status 0.
stop_daemon() {
  local rc
  kill "$pid"
  wait "$pid"
  rc=$?
  pid=
  [ "$rc" -eq 0 ] || fail "the daemon ($1) exited with status $rc after SIGTERM"
}
# gpu_counters WHAT INFO: on the GPU, STATUS's failure counters are 0, a batch ran on the device
# and the sessions' keys went to it once each, at OPEN (issue 26). The CPU backend has none.
gpu_counters() {
  [ "$backend" = cuda ] || return 0
  local what=$1 info=$2
  for zero in gpus_failed cpu_fallbacks cuda_errors copy_refusals self_check_failures; do
    grep -qE "[ =]$zero=0( |$)" <<<"$info" || fail "STATUS ($what): $zero is not 0: $info"
  done
  grep -qE ' batches=[1-9]' <<<"$info" || fail "STATUS ($what): no batch ran on the GPU: $info"
  grep -qE ' device_key_loads=[1-9]' <<<"$info" || fail "STATUS ($what): no key was loaded on the GPU: $info"
}
start_daemon "$sock" "$out/bitsliced.log"
"$tool" status --socket "$sock" >"$work/status0" || fail "status failed"
grep -q "^backend=$backend\$" "$work/status0" ||
  fail "the daemon did not choose backend $backend: $(grep '^backend' "$work/status0" | tr '\n' ' ')"

# 256 MiB + 17 bytes: several launches, and a tail that is no whole block of any cipher.
size=$((256 * 1048576 + 17))
head -c "$size" /dev/urandom >"$work/in"
# The provider and seal finish in-process, silently and byte for byte, when the daemon fails, so
# equal bytes alone do not show that the daemon served them: its bytes_served must grow by the
# file less the provider's first offload-threshold (1 MiB, in-process by design) and one MiB more.
served() { "$tool" status --socket "$sock" | sed -n 's/^bytes_served=//p'; }
need=$((size - 2 * 1048576))
P=(-provider-path "$build/provider" -provider bitslice -provider default)
key32=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
iv16=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "| cipher, openssl enc of 256 MiB + 17 B | in-process s | via the GPU daemon s | bytes equal | bytes the daemon served |" >>"$md"
echo "|---|---|---|---|---|" >>"$md"
# name:key hex digits:IV hex digits
for spec in present-ctr:32:16 gift-ctr:32:32 gift64-ctr:32:16 rijndael-256-ctr:64:32; do
  IFS=: read -r name klen ivlen <<<"$spec"
  k=${key32:0:$klen} v=${iv16:0:$ivlen}
  t0=$(date +%s.%N)
  BITSLICE_SOCKET= openssl enc "${P[@]}" -"$name" -K "$k" -iv "$v" -in "$work/in" \
    -out "$work/local" || fail "$name: openssl enc in-process failed"
  t1=$(date +%s.%N)
  s0=$(served)
  BITSLICE_SOCKET="$sock" openssl enc "${P[@]}" -"$name" -K "$k" -iv "$v" -in "$work/in" \
    -out "$work/gpu" || fail "$name: openssl enc through the daemon failed"
  t2=$(date +%s.%N)
  got=$(($(served) - s0))
  eq=yes
  cmp -s "$work/local" "$work/gpu" || eq=NO
  awk -v n="$name" -v a="$t0" -v b="$t1" -v c="$t2" -v e="$eq" -v g="$got" \
    'BEGIN { printf "| %s | %.2f | %.2f | %s | %d |\n", n, b - a, c - b, e, g }' >>"$md"
  [ "$eq" = yes ] || fail "$name: the GPU daemon's output differs from the in-process one"
  [ "$got" -ge "$need" ] || fail "$name: the daemon served $got bytes of $size (fell back in-process)"
done
"$tool" keygen -o "$work/key" >/dev/null || fail "keygen failed"
s0=$(served)
"$tool" seal -q --socket "$sock" -k "$work/key" -o "$work/in.bs" "$work/in" || fail "seal failed"
got=$(($(served) - s0))
[ "$got" -ge "$need" ] || fail "seal: the daemon served $got bytes of $size (fell back in-process)"
"$tool" open -q --no-daemon -k "$work/key" -o "$work/in.out" "$work/in.bs" || fail "open failed"
cmp -s "$work/in" "$work/in.out" || fail "seal through the GPU daemon / open in-process differ"
echo >>"$md"
echo "seal through the GPU daemon ($got bytes served by it), open in-process, 256 MiB + 17 B: round trip equal" >>"$md"
echo >>"$md"
for c in PRESENT-80 GIFT-128 RIJNDAEL-256; do
  echo '```' >>"$md"
  "$tool" bench --socket "$sock" --cipher "$c" --size-mib 256 >>"$md" 2>&1 ||
    fail "bitslice bench $c failed"
  echo '```' >>"$md"
done
# Issue 26: the user's path. A big file on tmpfs (BSGPU_BIG_MIB, default 4096): cp, bitslice seal
# and open through the daemon and in-process, openssl enc through the daemon and in-process; then
# the daemon stream at 1, 4 and 8 client threads (bench_client, one stream and connection each,
# 1 GiB each). Wall seconds and this process's user + sys CPU seconds per row.
big_mib=${BSGPU_BIG_MIB:-4096}
bdir=$work
if [ -d /dev/shm ] && [ -w /dev/shm ]; then bdir=$(mktemp -d /dev/shm/bitslice-big.XXXXXX); fi
bigclean() { [ "$bdir" = "$work" ] || rm -rf "$bdir"; }
big=$bdir/big
head -c $((big_mib * 1048576)) /dev/urandom >"$big" || { bigclean; fail "cannot write $big_mib MiB to $bdir"; }
TIMEFORMAT='%R %U %S'
row() { # label command...: one Markdown row, wall and CPU seconds
  local label=$1 t
  shift
  t=$({ time "$@" >/dev/null 2>"$work/row.err"; } 2>&1) || { cat "$work/row.err" >&2; bigclean; fail "$label failed"; }
  awk -v l="$label" -v m="$big_mib" -v t="$t" 'BEGIN { split(t, a, " ");
    printf "| %s | %.2f | %.2f | %.0f |\n", l, a[1], a[2] + a[3], m * 1.048576 / a[1] }' >>"$md"
}
echo >>"$md"
echo "| $big_mib MiB on $(df --output=fstype "$bdir" | tail -1) | wall s | CPU s (user+sys) | MB/s |" >>"$md"
echo "|---|---|---|---|" >>"$md"
row "cp" cp "$big" "$bdir/cp"
rm -f "$bdir/cp"
s0=$(served)
row "bitslice seal, daemon" "$tool" seal -q --socket "$sock" -k "$work/key" -o "$bdir/d.bs" "$big"
[ $(($(served) - s0)) -ge $((big_mib * 1048576 - 2 * 1048576)) ] || { bigclean; fail "big seal: not served by the daemon"; }
row "bitslice open, daemon" "$tool" open -q --socket "$sock" -k "$work/key" -o "$bdir/d.out" "$bdir/d.bs"
cmp -s "$big" "$bdir/d.out" || { bigclean; fail "big seal/open through the daemon differ"; }
rm -f "$bdir/d.bs" "$bdir/d.out"
row "bitslice seal, in-process" "$tool" seal -q --no-daemon -k "$work/key" -o "$bdir/l.bs" "$big"
row "bitslice open, in-process" "$tool" open -q --no-daemon -k "$work/key" -o "$bdir/l.out" "$bdir/l.bs"
cmp -s "$big" "$bdir/l.out" || { bigclean; fail "big seal/open in-process differ"; }
rm -f "$bdir/l.bs" "$bdir/l.out"
for spec in present-ctr:32:16 rijndael-256-ctr:64:32; do
  IFS=: read -r name klen ivlen <<<"$spec"
  k=${key32:0:$klen} v=${iv16:0:$ivlen}
  BITSLICE_SOCKET="" row "openssl enc -$name, in-process" openssl enc "${P[@]}" -"$name" -K "$k" -iv "$v" -in "$big" -out "$bdir/e.l"
  BITSLICE_SOCKET="$sock" row "openssl enc -$name, daemon" openssl enc "${P[@]}" -"$name" -K "$k" -iv "$v" -in "$big" -out "$bdir/e.d"
  cmp -s "$bdir/e.l" "$bdir/e.d" || { bigclean; fail "big openssl enc $name: daemon and in-process differ"; }
  rm -f "$bdir/e.l" "$bdir/e.d"
done
bigclean
client=$build/bench/service/bench_client
if [ -x "$client" ]; then
  echo >>"$md"
  echo '```' >>"$md"
  for c in PRESENT-80 RIJNDAEL-256; do
    for t in 1 4 8; do
      "$client" "$sock" stream "$c" "${BSGPU_STREAM_MIB:-1024}" 4096 "$t" >>"$md" 2>&1 ||
        fail "bench_client $c x$t failed"
    done
  done
  echo '```' >>"$md"
else
  echo "bench_client was not built: no stream-per-thread rows" >>"$md"
fi
"$tool" status --socket "$sock" >"$work/status1" || fail "status failed"
# What offload=auto decides here for each cipher the daemon served (its rate, this host's figures).
BITSLICE_OFFLOAD=auto "$tool" status --socket "$sock" --cipher RIJNDAEL-256 >"$work/status2" ||
  fail "status failed"
{ echo '```'; grep -E '^(rate|offload)' "$work/status2"; echo '```'; } >>"$md"
info=$(grep '^backend_info=' "$work/status1")
echo "STATUS after: \`$info\`" >>"$md"
stop_daemon "CUDA's default wait"
gpu_counters "CUDA's default wait" "$info"
# The same daemon with its pool threads sleeping while they wait for the device
# (BSGPU_SYNC=blocking: cudaDeviceScheduleBlockingSync) instead of CUDA's default, which spins
# here: the client's rate and the daemon's CPU per byte either way (issue 26). The same checks.
sync_pass() {
  local mode=$1 s2="$work/run/sync.sock"
  start_daemon "$s2" "$out/bitsliced-$mode.log" BSGPU_SYNC="$mode"
  { echo; echo "BSGPU_SYNC=$mode:"; echo; echo '```'; } >>"$md"
  for c in PRESENT-80 RIJNDAEL-256; do
    "$tool" bench --socket "$s2" --cipher "$c" --size-mib 256 >>"$md" 2>&1 ||
      fail "bitslice bench $c (BSGPU_SYNC=$mode) failed"
  done
  if [ -x "$client" ]; then
    for t in 1 4; do
      "$client" "$s2" stream PRESENT-80 "${BSGPU_STREAM_MIB:-1024}" 4096 "$t" >>"$md" 2>&1 ||
        fail "bench_client PRESENT-80 x$t (BSGPU_SYNC=$mode) failed"
    done
  fi
  echo '```' >>"$md"
  info=$("$tool" status --socket "$s2" | grep '^backend_info=') || fail "status failed"
  echo "STATUS after: \`$info\`" >>"$md"
  stop_daemon "BSGPU_SYNC=$mode"
  gpu_counters "BSGPU_SYNC=$mode" "$info"
}
sync_pass blocking
cat "$md"
exit 0
