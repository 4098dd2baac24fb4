#!/usr/bin/env bash
# Turns the benchmark tables into PNG plots (gnuplot), for the README and docs/:
#   docs/img/throughput.png   MB/s against message size, every bitslice cipher beside AES-256
#                             (OpenSSL's default provider), from `bench_evp` output
#   docs/img/batches.png      the daemon's batch-size histogram, from `bench_batch` output
#                             (the batch_hist line of the daemon's STATUS)
#   docs/img/mcu.png          estimated cycles per byte on Cortex-M3/M4 beside the published
#                             figures, from bench/plot/data/mcu.txt
#
#   bench/plot/plot.sh [--measure] [-o DIR] [BUILD]   (DIR: default docs/img; BUILD: build)
# Without --measure it plots the tables in bench/plot/data/ as committed. With --measure it first
# re-runs the host benchmarks (bench_evp 0.5 and bench_batch against a fresh daemon, about a
# minute) and rewrites data/evp.txt and data/batch.txt, with the date and the machine on top.
# The MCU table is not re-measured here: it comes from embedded/bench/run.py (bench/RESULTS.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
measure=0
out=$top/docs/img
while [ $# -gt 0 ]; do
  case $1 in
    --measure) measure=1; shift ;;
    -o) out=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "plot: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
build=$(cd "${1:-$top/build}" && pwd)
data=$here/data
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v gnuplot >/dev/null || { echo "plot: gnuplot is missing (scripts/setup.sh installs it)" >&2; exit 1; }

machine() {
  printf '# %s UTC, %s, %s vCPUs, %s; load average %s\n' "$(date -u '+%Y-%m-%d %H:%M')" \
    "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sed -n 1p)" "$(nproc)" \
    "$(. /etc/os-release && echo "$PRETTY_NAME")" "$(cut -d' ' -f1-3 /proc/loadavg)"
}

if [ "$measure" = 1 ]; then
  shown=$(realpath --relative-to="$top" "$build")
  { machine; echo "# $shown/bench/evp/bench_evp 0.5"; "$build/bench/evp/bench_evp" 0.5; } \
    >"$data/evp.txt.new"
  mv "$data/evp.txt.new" "$data/evp.txt"
  run=$(mktemp -d)
  "$build/service/bitsliced" --socket "$run/s/bitsliced.sock" 2>"$run/log" &
  pid=$!
  for _ in $(seq 100); do [ -S "$run/s/bitsliced.sock" ] && break; sleep 0.05; done
  { machine; echo "# $shown/service/bench_batch SOCKET 64 16 1048576 PRESENT-80 (CPU backend)";
    "$build/service/bench_batch" "$run/s/bitsliced.sock" 64 16 1048576 PRESENT-80; } \
    >"$data/batch.txt.new"
  kill "$pid"; wait "$pid" || true
  rm -rf "$run"
  mv "$data/batch.txt.new" "$data/batch.txt"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
title_of() { sed -n '1s/^# //p' "$1" | cut -c1-130; }

# 1. Throughput against message size: the rows of bench_evp's table ("cipher provider v1 v2...")
# under its header line "cipher provider 16 B 256 B ...".
awk '/^cipher[[:space:]]+provider/ {
       n = 0; for (i = 3; i <= NF; i++) if ($i != "B") sizes[++n] = $i; next }
     n && NF == n + 2 && $3 ~ /^[0-9.]+$/ {
       print "\"" $1 " (" $2 ")\"" > "'"$tmp"'/names"
       for (i = 1; i <= n; i++) print sizes[i], $(i + 2) > "'"$tmp"'/" $1 ".dat" }' \
  "$data/evp.txt"
plots=
for f in "$tmp"/*.dat; do
  name=$(basename "$f" .dat)
  prov=$(awk -v c="$name" '$1 == c {print $2; exit}' "$data/evp.txt")
  style="lw 2 pt 7"
  case $name in AES-*) style="lw 3 dt 2 pt 5" ;; esac
  plots+="${plots:+, }'$f' using 1:2 with linespoints $style title '$name ($prov)'"
done
gnuplot <<GP
set terminal pngcairo size 900,640 font "DejaVu Sans,11"
set output '$out/throughput.png'
set title "Throughput through the OpenSSL EVP API, one thread\n{/*0.8 $(title_of "$data/evp.txt")}"
set xlabel 'message size per EVP call (bytes)'
set ylabel 'MB/s (10^6 bytes per CPU second, log scale)'
set logscale xy
set xtics ('16' 16, '256' 256, '4 KiB' 4096, '64 KiB' 65536)
set grid
set key below maxrows 3 width 2
plot $plots
GP

# 2. The daemon's batch histogram: "batch_hist=<=1:253,<=2:54,...,>256:0".
sed -n 's/.*batch_hist=//p' "$data/batch.txt" | tr ',' '\n' |
  sed -E 's/^<=([0-9]+):([0-9]+)$/"<=\1" \2/; s/^>([0-9]+):([0-9]+)$/">\1" \2/' >"$tmp/hist"
[ -s "$tmp/hist" ] || { echo "plot: no batch_hist line in $data/batch.txt" >&2; exit 1; }
summary=$(grep -m1 'clients x' "$data/batch.txt" | sed 's/^[[:space:]]*//' | cut -c1-110)
gnuplot <<GP
set terminal pngcairo size 900,480 font "DejaVu Sans,11"
set output '$out/batches.png'
set title "bitsliced: requests per batch handed to the CPU backend\n{/*0.8 $summary}\n{/*0.8 $(title_of "$data/batch.txt")}"
set xlabel 'batch size (requests)'
set ylabel 'batches'
set style fill solid 0.7 border -1
set boxwidth 0.7
set grid ytics
set yrange [0:*]
unset key
plot '$tmp/hist' using 0:2:xtic(1) with boxes lc rgb '#3b75af', \
     '' using 0:2:(\$2 > 0 ? sprintf('%d', \$2) : '') with labels offset 0,0.7
GP

# 3. MCU: estimated cycles per byte beside published figures (data/mcu.txt: core, target,
# estimate, published, source).
awk -F'|' '!/^#/ && NF >= 4 { gsub(/^ +| +$/, "", $1); gsub(/^ +| +$/, "", $2);
  sub(/^Cortex-/, "", $2); printf "\"%s (%s)\" %s %s\n", $1, $2, $3, $4 }' "$data/mcu.txt" >"$tmp/mcu"
gnuplot <<GP
set terminal pngcairo size 900,520 font "DejaVu Sans,11"
set output '$out/mcu.png'
set title "32-bit MCU cores, -O2: cycles per byte (lower is better)\n{/*0.8 this project: estimated from exact QEMU instruction counts (timing model of bench/RESULTS.md); published: real boards}"
set ylabel 'cycles per byte'
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set yrange [0:*]
set key top left
set xrange [-0.6:$(($(wc -l <"$tmp/mcu") - 1)).6]
set offsets 0, 0, 20, 0
set xtics font ",10"
plot '$tmp/mcu' using 2:xtic(1) title 'this project (estimate)' lc rgb '#3b75af', \
     '' using 3 title 'published' lc rgb '#e08a2c', \
     '' using 0:(\$2):(sprintf('%.0f', \$2)) with labels offset -1.6,0.7 notitle, \
     '' using 0:(\$3):(sprintf('%.0f', \$3)) with labels offset 1.6,0.7 notitle
GP
ls -l "$out"/throughput.png "$out"/batches.png "$out"/mcu.png
