#!/usr/bin/env bash
# What stream capture costs the broker: QoS 0 fan-in (4 publishers, 64 B and 1 KB) with no
# exchange, then with an exchange capturing every message kept in memory until its Parquet file is
# written (durability = none), then through the exchange's write-ahead log (durability = wal, the
# default), in one session on this machine. Prints one result line per run, and after each run
# with capture the share of the same round's capture-off throughput it kept.
#   examples/bench/capture-cost.sh
# SECONDS_PER_RUN and WARMUP_SECONDS override 10 s each; ROUNDS (default 1) repeats the whole
# sequence, interleaved, since runs on a shared machine move by 15 % or more from one to the next.
set -eu
cd "$(dirname "$0")/../.."
. examples/bench/bench-lib.sh

capture() { # extra exchange keys
  printf 'persistence.enabled = false\nexchange_client.bench {\n  exchange_url = "tcp://127.0.0.1:*"\n  exchange {\n    name = bench\n    topic = "bench/#"\n    ringbus { cap = 50000 }\n    %s\n  }\n}\n' "$1"
}

rate() { # the deliveries per second of a result line
  sed -n 's/.* = \([0-9]*\)\/s;.*/\1/p'
}

for round in $(seq "${ROUNDS:-1}"); do
  for payload in 64 1024; do
    echo "round $round, payload $payload B"
    start_sluice off "persistence.enabled = false"
    line=$(bench throughput --publishers 4 --subscribers 1 --qos 0 --payload $payload --pid "$broker" --label "capture-off")
    stop_broker
    echo "$line"
    off=$(echo "$line" | rate)
    for durability in none wal; do
      start_sluice "$durability" "$(capture "durability = $durability")"
      line=$(bench throughput --publishers 4 --subscribers 1 --qos 0 --payload $payload --pid "$broker" --label "capture-$durability")
      stop_broker
      echo "$line"
      echo "  kept $(( 100 * $(echo "$line" | rate) / off )) % of capture-off"
      du -sh "$work/$durability/parquet" | sed 's/^/  parquet written: /'
    done
    rm -rf "$work/off" "$work/none" "$work/wal"
  done
done
