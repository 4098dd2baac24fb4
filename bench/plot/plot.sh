#!/usr/bin/env bash
# Turns the benchmark tables into PNG plots (gnuplot), for the README and docs/guidelines.md:
#   docs/img/x86.png          MB/s against message size for every cipher at each CPU level
#                             (avx512, avx2/aesni, portable) beside OpenSSL's AES-256 as measured,
#                             and every algorithm through `openssl speed` at 16 KiB (data/x86.txt,
#                             data/x86-speed.txt)
#   docs/img/mcu.png          Cortex-M3 estimated cycles per byte and RV32I instructions per byte,
#                             every cipher and variant beside the published figures and the
#                             anchors' code measured the same way (data/mcu.txt)
#   docs/img/gpu.png          the H200 kernels against their model bound and the published GPU
#                             figures (data/gpu.txt)
#   docs/img/offload.png      the offload path: in-process, the daemon on the GPU, the GPU bulk path
#                             against bytes per call (data/offload.txt, data/x86.txt)
#   docs/img/throughput.png   MB/s through the OpenSSL EVP API, from `bench_evp` (data/evp.txt)
#   docs/img/batches.png      the daemon's batch-size histogram, from `bench_batch` (data/batch.txt)
#
#   bench/plot/plot.sh [--measure] [-o DIR] [BUILD]   (DIR: default docs/img; BUILD: build)
# The first four tables are extracted from bench/RESULTS.md by bench/plot/extract.py (the docs
# stage checks that they match it). Without --measure the tables are plotted as committed. With
# --measure it first re-runs the host benchmarks (bench_evp 0.5 and bench_batch against a fresh
# daemon, about a minute) and rewrites data/evp.txt and data/batch.txt, with the date, the
# machine and the load on top. Each plot's title carries its table's date, machine and load.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
measure=0
out=$top/docs/img
while [ $# -gt 0 ]; do
  case $1 in
    --measure) measure=1; shift ;;
    -o) out=$2; shift 2 ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "plot: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
build=${1:-$top/build}
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
  build=$(cd "$build" && pwd)
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
title_of() { sed -n '1s/^# //p' "$1" | cut -c1-210; }

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

# The tables extracted from bench/RESULTS.md: '|'-separated, comments first; as tab-separated
# rows for gnuplot.
tsv() { grep -v '^#' "$1" | sed -E 's/^[[:space:]]+//; s/[[:space:]]*\|[[:space:]]*/\t/g'; }
color_of() {
  case $1 in
    *OpenSSL\ 3.0*CTR*) echo '#000000' ;; *OpenSSL\ 3.0*GCM*) echo '#777777' ;;
    *OpenSSL*CTR*) echo '#e377c2' ;; *OpenSSL*GCM*) echo '#c49c94' ;;
    PRESENT*) echo '#1f77b4' ;; GIFT-64*) echo '#2ca02c' ;; GIFT-128*) echo '#17becf' ;;
    SKINNY*) echo '#9467bd' ;; SPEEDY*) echo '#8c564b' ;;
    RIJNDAEL-256-CTR*) echo '#d62728' ;; RIJNDAEL-256-GCM*) echo '#ff7f0e' ;; *) echo '#bcbd22' ;;
  esac
}

# 3. x86-64: MB/s against message size at each CPU level, and openssl speed at 16 KiB.
tsv "$data/x86.txt" >"$tmp/x86"
panel() { # LEVEL TITLE KEY: a gnuplot plot command for one level, its key placed at KEY
  local level=$1 plot= n=0 name f style
  while IFS= read -r name; do
    n=$((n + 1)); f=$tmp/x86-$level-$n
    awk -F'\t' -v l="$level" -v s="$name" '$1 == l && $2 == s {print $3, $4}' "$tmp/x86" >"$f"
    style="lw 2 pt 7 ps 1.2"
    case $name in OpenSSL*) style="lw 2 dt 2 pt 5 ps 1" ;; esac
    plot+="${plot:+, }'$f' using 1:2 with linespoints $style lc rgb '$(color_of "$name")' title '$name'"
  done < <(awk -F'\t' -v l="$level" '$1 == l && !seen[$2]++ {print $2}' "$tmp/x86")
  echo "set title '$2'; set key $3; plot $plot"
}
tsv "$data/x86-speed.txt" >"$tmp/speed"
gnuplot <<GP
set terminal pngcairo size 1400,1100 font "DejaVu Sans,10"
set output '$out/x86.png'
set multiplot layout 2,2 title "x86-64, one thread: every cipher at each CPU level beside OpenSSL's AES-256 (higher is better)\n{/*0.9 $(title_of "$data/x86.txt")}\n{/*0.85 MB/s from the c/B and ratios of bench/RESULTS.md (see data/x86.txt); a level's panel shows only what was measured at it}"
set logscale xy
set xrange [40:1.7e6]
set yrange [40:30000]
set xtics ('64 B' 64, '16 KiB' 16384, '1 MiB' 1048576)
set xlabel 'message size per call'
set ylabel 'MB/s (log)'
set grid
set key bottom right font ",9" spacing 0.9
$(panel avx512 'AVX-512 level (avx512 / vaes+vpclmul cores)' 'bottom right')
$(panel avx2 'AVX2 level (avx2 cores; RIJNDAEL-256 on AES-NI)' 'bottom right')
$(panel portable 'portable level (bs64, 64 lanes; RIJNDAEL-256 bs64+ctmul64): 16 KiB only for the wide ciphers' 'bottom right; set yrange [5:30000]')
unset logscale; unset xrange; set yrange [0:*]; unset xlabel
set title 'every algorithm through the provider: openssl speed -evp, 16 KiB, in-process'
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.8
set xtics rotate by 40 right font ",9"
set ylabel 'MB/s'
unset key
set datafile separator '\t'
plot '$tmp/speed' using 2:xtic(1) lc rgb '#3b75af', '' using 0:2:(sprintf('%.0f', \$2)) with labels offset 0,0.6 font ',8'
unset multiplot
GP

# 4. MCU: Cortex-M3 estimated cycles per byte and RV32I instructions per byte (data/mcu.txt:
# core | kind | M3 est. c/B | M4 est. c/B | M3 instr./B | RV32I instr./B).
tsv "$data/mcu.txt" | awk -F'\t' '
  { k = $2 ~ /^same-way/ ? "same" : $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
    m3[$1, k] = $3; m4[$1, k] = $4; i3[$1, k] = $5; rv[$1, k] = $6
    if (v($3) == "-" && v($4) != "-") onm4[$1] = 1 }
  function v(x) { return (x == "" || x == "-") ? "-" : x }
  function m(a, b) { return v(a) != "-" ? v(a) : v(b) }
  END { for (i = 1; i <= n; i++) { c = order[i]
    # cycles on the M3, or on the M4 for a core whose anchor was measured there only
    if (c in onm4) printf "\"%s (M4)\"\t%s\t%s\t%s\n", c, v(m4[c, "ours"]), v(m4[c, "same"]),
      v(m4[c, "published"]) > "'"$tmp"'/mcu-c"
    else printf "\"%s\"\t%s\t%s\t%s\n", c, v(m3[c, "ours"]), v(m3[c, "same"]),
      v(m3[c, "published"]) > "'"$tmp"'/mcu-c"
    printf "\"%s\"\t%s\t%s\t%s\t%s\t%s\n", c, v(rv[c, "ours"]), v(rv[c, "same"]), v(rv[c, "published"]),
      v(i3[c, "ours"]), v(i3[c, "same"]) > "'"$tmp"'/mcu-i" } }'
gnuplot <<GP
set terminal pngcairo size 1400,1100 font "DejaVu Sans,10"
set output '$out/mcu.png'
set datafile separator '\t'
set datafile missing '-'
set multiplot layout 2,1 title "32-bit MCUs: every cipher and variant, -O2 unless named (lower is better)\n{/*0.85 $(title_of "$data/mcu.txt")}"
set style data histograms
set style histogram clustered gap 1.2
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set yrange [0:*]
set xtics rotate by 35 right font ",9"
set key top left font ",9"
set offsets 0, 0, graph 0.08, 0
set title 'Cortex-M3 estimated cycles per byte; (M4): the Cortex-M4, where the figure compared was measured there'
set ylabel 'est. cycles / byte'
plot '$tmp/mcu-c' using 2:xtic(1) title 'this project (estimate from exact instruction counts)' lc rgb '#3b75af', \
     '' using 3 title "the anchor's code measured the same way (estimate)" lc rgb '#59a14f', \
     '' using 4 title 'published (real boards)' lc rgb '#e08a2c'
set title 'instructions per byte: RV32I (retired instructions = cycles at one per cycle) and Cortex-M3 (exact)'
set ylabel 'instructions / byte'
plot '$tmp/mcu-i' using 2:xtic(1) title 'this project, RV32I' lc rgb '#3b75af', \
     '' using 3 title "anchor's code, RV32I, same way" lc rgb '#59a14f', \
     '' using 4 title 'published RV32I (cycles)' lc rgb '#e08a2c', \
     '' using 5 title 'this project, Cortex-M3' lc rgb '#9ecae9', \
     '' using 6 title "anchor's code, Cortex-M3, same way" lc rgb '#b5dea6'
unset multiplot
GP

# 5. GPU kernels against the model bound and the published figures (data/gpu.txt: kernel | run 1
# | run 2 | bound | published | registers | warps/SM).
tsv "$data/gpu.txt" | awk -F'\t' '{printf "\"%s\\n%s regs, %s warps/SM\"\t%s\t%s\t%s\n", $1, $6, $7, $2, $4, $5}' >"$tmp/gpu"
gnuplot <<GP
set terminal pngcairo size 1000,640 font "DejaVu Sans,11"
set output '$out/gpu.png'
set bmargin 4.5
set datafile separator '\t'
set datafile missing '-'
set title "GPU CTR kernels into device memory: measured, model bound, published (higher is better)\n{/*0.8 $(title_of "$data/gpu.txt")}"
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set yrange [0:8200]
set ylabel 'Gbit/s'
set key top right
plot '$tmp/gpu' using 2:xtic(1) title 'measured, H200 (median of 10 calls)' lc rgb '#3b75af', \
     '' using 3 title 'model bound (estimate from static SASS)' lc rgb '#bbbbbb', \
     '' using 4 title 'published: Kim et al. 2022, RTX 3060 (other GPU)' lc rgb '#e08a2c', \
     '' using (\$0 - 0.27):2:(sprintf('%.0f', \$2)) with labels offset 0,0.7 notitle, \
     '' using (\$0):3:(sprintf('%.0f', \$3)) with labels offset 0,0.7 notitle, \
     '' using (\$0 + 0.27):4:(sprintf('%.0f', \$4)) with labels offset 0,0.7 notitle
GP

# 6. Offload: GB/s against bytes per call on the GPU machine, and its daemon's paths.
tsv "$data/offload.txt" >"$tmp/off"
plot=
n=0
while IFS= read -r path; do
  n=$((n + 1))
  awk -F'\t' -v p="$path" '$1 == "bulk" && $2 == p {print $3, $4}' "$tmp/off" | sort -n >"$tmp/off-$n"
  plot+="${plot:+, }'$tmp/off-$n' using 1:2 with linespoints lw 2 pt 7 title '$path (H200)'"
done < <(awk -F'\t' '$1 == "bulk" && !seen[$2]++ {print $2}' "$tmp/off")
for s in 'PRESENT-80-CTR (avx512)' 'RIJNDAEL-256-CTR (vaes)'; do
  n=$((n + 1))
  awk -F'\t' -v s="$s" '$1 == "avx512" && $2 == s {print $3, $4 / 1000}' "$tmp/x86" >"$tmp/off-$n"
  plot+=", '$tmp/off-$n' using 1:2 with linespoints lw 2 dt 2 pt 5 lc rgb '$(color_of "$s")' title 'in-process, one thread: $s (EPYC VM, $(sed -n '1s/^# \([0-9-]*\).*/\1/p' "$data/x86.txt"))'"
done
awk -F'\t' '$1 == "daemon" {print "\"" $2 "\"", "\"" $3 "\"", $4 / 1000}' "$tmp/off" >"$tmp/daemon"
gnuplot <<GP
set terminal pngcairo size 1400,620 font "DejaVu Sans,10"
set output '$out/offload.png'
set multiplot layout 1,2 title "The offload path: in-process, the daemon, the GPU (higher is better)\n{/*0.85 $(title_of "$data/offload.txt")}"
set title 'keystream GB/s against bytes per call (GPU bulk: bsgpu_keystream into registered host memory, PRESENT-80)' noenhanced
set logscale x
set logscale y
set xrange [40:1.2e8]
set xtics ('64 B' 64, '1 KiB' 1024, '16 KiB' 16384, '1 MiB' 1048576, '64 MiB' 67108864)
set xlabel 'bytes per call (GPU, 1000 sessions: per session)'
set ylabel 'GB/s (log)'
set grid
set key bottom right font ",8"
plot $plot
unset logscale; unset xrange; unset xlabel
set title 'the daemon on the GPU (bitsliced --set backend=cuda), 256 MiB of keystream, wall'
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.8 border -1
set xtics ('PRESENT-80 (avx512)' 0, 'GIFT-128 (avx512)' 1, 'RIJNDAEL-256 (vaes)' 2) font ",9"
set yrange [0:7.8]
set ylabel 'GB/s'
set key top left font ",8"
array P[5] = ['in-process, 1 thread', 'daemon (cuda), large requests', 'daemon stream, 4 KiB reads', 'provider path in-process, 4 KiB calls', 'provider path via daemon, 4 KiB calls']
array C[5] = ['#000000', '#e15759', '#f28e2b', '#9c9c9c', '#4e79a7']
set boxwidth 0.15
plot for [i=1:5] '$tmp/daemon' using (int(\$0 / 5) + (i - 3) * 0.16):(strcol(2) eq P[i] ? \$3 : NaN) with boxes lc rgb C[i] title P[i], \
     for [i=1:5] '$tmp/daemon' using (int(\$0 / 5) + (i - 3) * 0.16):(strcol(2) eq P[i] ? \$3 : NaN):(sprintf('%.1f', \$3)) with labels offset 0,0.6 font ',8' notitle
unset multiplot
GP
ls -l "$out"/x86.png "$out"/mcu.png "$out"/gpu.png "$out"/offload.png "$out"/throughput.png \
  "$out"/batches.png
