#!/usr/bin/env bash
# (Used for bench/RESULTS.md: issue 12 follow-up, "The daemon bench, RIJNDAEL-256".)
# Usage: bench/service/batch_ab.sh BEFORE_BUILD AFTER_BUILD [pairs=7]
# A/B: bench_batch RIJNDAEL-256 (8 clients x 8 requests x 1 MiB) against each build's own
# daemon, alternated; prints the wall time of each run and the batcher's median batch size.
before=${1:?before build}
after=${2:?after build}
reps=${3:-7}
for r in $(seq $reps); do
  for b in "$before" "$after"; do
    d=$(mktemp -d); sock=$d/s
    "$b/service/bitsliced" --socket "$sock" 2>$d/log & p=$!
    for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
    s=$(date +%s%N)
    nice "$b/bench/service/bench_batch" "$sock" 8 8 1048576 RIJNDAEL-256 > $d/out 2>&1
    e=$(date +%s%N)
    echo "$b $(( (e - s) / 1000000 )) ms $(grep -io 'median[^,]*' $d/out | sed -n 1p)"
    kill $p; wait $p 2>/dev/null; rm -rf $d
  done
done
