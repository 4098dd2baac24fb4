#!/usr/bin/env bash
# A key search sharded the way the README says: `bitslice keysearch --part K/N` as a Slurm job
# array (scripts/keysearch-array.sbatch) on a one-node Slurm started here (munged, slurmctld,
# slurmd from Debian's packages, in a private network namespace that has only loopback), and
# the same search under GNU parallel. Each must find the key in exactly one shard, and the
# shards must together have tried every candidate once. Needs root (daemons, a namespace).
set -euo pipefail
top=${BS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
if [ "$(id -u)" -ne 0 ]; then
  echo "skip: a private Slurm needs root"
  exit 0
fi
# Re-run inside a new network namespace: the daemons can then reach nothing but 127.0.0.1.
if [ -z "${BS_SHARDS_NETNS:-}" ]; then
  exec env BS_SHARDS_NETNS=1 BS_TOP="$top" unshare --net --fork bash "$0" "$@"
fi
ip link set lo up
# Slurm resolves its listening address with AI_ADDRCONFIG, which wants one non-loopback address:
# a documentation address (RFC 5737) on lo, still reachable from nowhere else.
ip addr add 192.0.2.1/32 dev lo

bitslice=$top/build/tools/bitslice

[ -x "$bitslice" ] || { echo "shards: no bitslice in build/ (the first stage builds it)" >&2; exit 1; }
# 24 unknown bits of PRESENT-80: 2^24 candidates, a few seconds on 2 cores in all.
search=(-c PRESENT-80 -k ffff00ffffffffff0000 -m 0000ff0000000000ffff -p 0000000000000000
  -x e72c46c0f5945049)
want=ffffffffffffffffffff

d=$(mktemp -d /tmp/bitslice-slurm.XXXXXX)
chmod 755 "$d"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$d"
}
trap cleanup EXIT
fail() {
  echo "shards: FAIL: $*" >&2
  for f in "$d"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }; done
  exit 1
}

# Checks the outputs of N shards: exactly one "found $want", every other "not found", and the
# keys tried adding up to the whole space.
check() { # name N files...
  local name=$1 n=$2
  shift 2
  local found notfound keys
  found=$(cat "$@" | grep -c "^found $want$" || true)
  notfound=$(cat "$@" | grep -c '^not found$' || true)
  keys=$(cat "$@" | sed -n 's/.* keys=\([0-9]*\) .*/\1/p' | paste -sd+ | bc)
  echo "  $name: $n shards, found in $found, not found in $notfound, $keys keys tried"
  [ "$found" -eq 1 ] || fail "$name: the key was found in $found shards, not exactly one"
  [ "$notfound" -eq $((n - 1)) ] || fail "$name: $notfound shards report 'not found', not $((n - 1))"
  # The finding shard stops early; the others search their whole slice.
  [ "$keys" -le $((1 << 24)) ] || fail "$name: $keys keys tried, more than the space"
  # The slices (chunks=A..B, 64 candidates a chunk) must tile the 2^18 chunks exactly once.
  local next=0 a b
  while read -r a b; do
    [ "$a" -eq "$next" ] || fail "$name: slices leave a gap or overlap at chunk $next (next starts at $a)"
    next=$b
  done < <(cat "$@" | sed -n 's/.* chunks=\([0-9]*\)\.\.\([0-9]*\) .*/\1 \2/p' | sort -n)
  [ "$next" -eq $((1 << 18)) ] || fail "$name: the slices end at chunk $next, not $((1 << 18))"
}

echo "shards: GNU parallel, 4 shards"
parallel -j 2 "$bitslice" keysearch -q -t 1 --part {}/4 "${search[@]}" '>' "$d/par.{}.out" \
  ::: 0 1 2 3 || true # every shard but one exits 1 (not found)
check parallel 4 "$d"/par.*.out

echo "shards: one-node Slurm (munged, slurmctld, slurmd on 127.0.0.1 only)"
host=$(hostname -s)
mkdir -p "$d/state" "$d/spool" "$d/munge" "$d/job"
chown munge: "$d/munge"
cat >"$d/slurm.conf" <<EOF
ClusterName=bitslice-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=10 State=UP
EOF
export SLURM_CONF=$d/slurm.conf
runuser -u munge -- /usr/sbin/munged --socket="$d/munge/munge.socket" \
  --pid-file="$d/munge/munged.pid" --log-file="$d/munge/munged.log" \
  --seed-file="$d/munge/seed" || fail "munged did not start"
pids+=("$(cat "$d/munge/munged.pid")")
slurmctld -D -f "$d/slurm.conf" >"$d/slurmctld.stdout.log" 2>&1 &
pids+=($!)
slurmd -D -f "$d/slurm.conf" -N "$host" >"$d/slurmd.stdout.log" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 60); do
  if grep -qE '^(idle|mixed|allocated)' <<<"$(sinfo -h -N -o '%T' 2>/dev/null || true)"; then up=1; break; fi
  sleep 0.5
done
[ "$up" = 1 ] || fail "the node did not come up: $(sinfo -N 2>&1 | tail -2)"
sinfo -N | sed 's/^/  /'

cd "$d/job"
jid=$(BITSLICE=$bitslice sbatch --parsable --array=0-3 --cpus-per-task=1 \
  "$top/scripts/keysearch-array.sbatch" "${search[@]}") || fail "sbatch"
echo "  job array $jid submitted"
done_=0
for _ in $(seq 240); do
  if [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ]; then done_=1; break; fi
  sleep 0.5
done
[ "$done_" = 1 ] || fail "the job array did not finish in 2 minutes: $(squeue 2>&1 | tail -5)"
outs=("$d"/job/keysearch-"$jid"_*.out)
[ "${#outs[@]}" -eq 4 ] || fail "expected 4 task outputs, got ${#outs[@]}"
check "slurm array $jid" 4 "${outs[@]}"
# The batch script maps "not found" to exit 0: every task must have COMPLETED.
states=$(scontrol show job "$jid" 2>/dev/null | grep -o 'JobState=[A-Z]*' | sort | uniq -c | tr -s ' ')
echo "  task states:$states"
[ "$(scontrol show job "$jid" | grep -c 'JobState=COMPLETED')" -eq 4 ] || fail "not every task COMPLETED"
echo "shards: ok"
