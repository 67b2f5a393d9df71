#!/usr/bin/env bash
# What stream capture costs the broker: QoS 0 fan-in (4 publishers, 64 B and 1 KB) with no
# exchange, then with an exchange capturing every message kept in memory until its Parquet file is
# written (durability = none), then through the exchange's write-ahead log (durability = wal, the
# default), in one session on this machine. Prints one result line per run.
#   examples/bench/capture-cost.sh       (SECONDS_PER_RUN and WARMUP_SECONDS override 10 s each)
set -eu
cd "$(dirname "$0")/../.."
. examples/bench/bench-lib.sh

capture() { # extra exchange keys
  printf 'persistence.enabled = false\nexchange_client.bench {\n  exchange_url = "tcp://127.0.0.1:*"\n  exchange {\n    name = bench\n    topic = "bench/#"\n    ringbus { cap = 50000 }\n    %s\n  }\n}\n' "$1"
}

for payload in 64 1024; do
  start_sluice off "persistence.enabled = false"
  bench throughput --publishers 4 --subscribers 1 --qos 0 --payload $payload --pid "$broker" --label "capture-off"
  stop_broker
  for durability in none wal; do
    start_sluice "$durability" "$(capture "durability = $durability")"
    bench throughput --publishers 4 --subscribers 1 --qos 0 --payload $payload --pid "$broker" --label "capture-$durability"
    stop_broker
    du -sh "$work/$durability/parquet" | sed 's/^/  parquet written: /'
  done
  rm -rf "$work/off" "$work/none" "$work/wal"
done
