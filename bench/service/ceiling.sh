#!/usr/bin/env bash
# The path's ceiling (issue 26, item 6) against the real CPU backend, alternated. Prints a table;
# asserts nothing. Usage:
#   bench/service/ceiling.sh [RUNS=5] [MIB=1024] [CIPHER=RIJNDAEL-256]
# Builds the benchmark-only build in $CEIL_BUILD (default build-ceiling, its own directory:
# -Dbench_ceiling=true is refused for release builds), starts two daemons of that one build,
# `--set backend=ceiling` (the keystream of the first MIB MiB precomputed once, then copied: every
# check still runs) and `--set backend=cpu`, and runs `bitslice bench --size-mib MIB` RUNS times
# against each, in alternation (the order swapped every round), after one discarded warm-up each
# (the ceiling computes its buffer at the first request). For each daemon it prints every run's
# streamed rate (the "daemon stream, 4 KiB reads" row) and provider row, and the medians: wall
# MB/s, this process's (the client's) and the daemon's CPU ns/B, and the 1-minute load beside
# them. On a shared machine wall MB/s mostly measures the neighbours; CPU time per byte does not,
# so the script also prints the bound the machine's free cores would give (cores / the two
# processes' ns/B together, an estimate, not a measurement). Take the ceiling's figure on a quiet
# machine.
set -euo pipefail
runs=${1:-5}
mib=${2:-1024}
cipher=${3:-RIJNDAEL-256}
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${CEIL_BUILD:-$top/build-ceiling}
if [ ! -f "$b/build.ninja" ]; then
  meson setup "$b" "$top" -Dbuildtype=debugoptimized -Doptimization=3 -Db_ndebug=true \
    -Dbench_ceiling=true >/dev/null
fi
ninja -C "$b" service/bitsliced tools/bitslice >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/bs-ceiling-XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
start() { # name backend: a daemon on $work/name/s.sock
  mkdir -p "$work/$1"
  BSD_BENCH_CEILING_MIB=$mib "$b/service/bitsliced" --socket "$work/$1/s.sock" \
    --set "backend=$2" --set "max_shm_bytes=$((mib > 1024 ? mib : 1024))M" 2>"$work/$1.log" &
  pids+=($!)
  for _ in $(seq 200); do [ -S "$work/$1/s.sock" ] && return 0; sleep 0.05; done
  echo "daemon $1 did not start:" >&2
  cat "$work/$1.log" >&2
  exit 1
}
start ceiling ceiling
start cpu cpu
export BITSLICE_OFFLOAD=always

one() { # name round: one bench run, its rows kept in $work/name.rows
  local out load
  load=$(cut -d' ' -f1 /proc/loadavg)
  out=$("$b/tools/bitslice" bench --cipher "$cipher" --size-mib "$mib" --socket "$work/$1/s.sock")
  # The ceiling daemon must have served the large requests itself (not refused, not another backend).
  case "$out" in *"daemon ($1), large requests"*) ;; *)
    echo "the $1 daemon did not serve the run:" >&2
    echo "$out" >&2
    exit 1
    ;;
  esac
  [ "$2" = 0 ] && return 0
  awk -v n="$1" -v load="$load" '
    function mbs(   i) { for (i = 2; i <= NF; i++) if ($i == "MB/s") return $(i - 1) }
    /^daemon stream, 4 KiB reads/ { s = mbs() " " $(NF-4) " " $(NF-1) }
    /^provider path via daemon/ { p = mbs() " " $(NF-4) " " $(NF-1) }
    END { print n, s, p, load }' <<<"$out" >>"$work/rows"
}
one ceiling 0
one cpu 0
for r in $(seq "$runs"); do
  if [ $((r % 2)) = 1 ]; then one ceiling "$r"; one cpu "$r"; else one cpu "$r"; one ceiling "$r"; fi
done

echo "# $cipher, $mib MiB a run, $runs runs a daemon alternated; $(nproc) CPUs," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# per run: stream MB/s, client ns/B, daemon ns/B | provider MB/s, client, daemon | load"
sort -s -k1,1 "$work/rows" | awk '{ printf "%-8s %9.1f %6.3f %6.3f | %9.1f %6.3f %6.3f | %s\n",
  $1, $2, $3, $4, $5, $6, $7, $8 }'
echo "# medians (load: min-max over the runs)"
for n in ceiling cpu; do
  awk -v n="$n" '$1 == n' "$work/rows" | sort -k2,2n | awk -v n="$n" -v cores="$(nproc)" '
    { for (i = 2; i <= 8; i++) v[i, NR] = $i; if (NR == 1 || $8 < lo) lo = $8; if ($8 > hi) hi = $8 }
    function med(i,   k, m, a, t) {
      for (k = 1; k <= NR; k++) a[k] = v[i, k]
      for (k = 1; k <= NR; k++) for (m = k + 1; m <= NR; m++) if (a[m] < a[k]) { t = a[k]; a[k] = a[m]; a[m] = t }
      return NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
    }
    END {
      c = med(3); d = med(4)
      printf "%-8s stream %8.1f MB/s wall, client %.3f ns/B, daemon %.3f ns/B (both %.3f);" \
        " bound on %d free cores %d/%.3f = %.1f GB/s (estimate)\n", n, med(2), c, d, c + d,
        cores, cores, c + d, cores / (c + d)
      printf "%-8s provider %6.1f MB/s wall, client %.3f ns/B, daemon %.3f ns/B; load %s-%s\n",
        n, med(5), med(6), med(7), lo, hi
    }'
done
