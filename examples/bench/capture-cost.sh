#!/usr/bin/env bash
# What stream capture costs the broker: QoS 0 fan-in (4 publishers, 64 B) with no exchange, then
# with an exchange capturing every message, in one run on this machine; the last run adds
# durability = wal if the build supports it. Prints one result line per run.
#   examples/bench/capture-cost.sh       (SECONDS_PER_RUN and WARMUP_SECONDS override 10 s each)
set -eu
cd "$(dirname "$0")/../.."
. examples/bench/bench-lib.sh

capture() { # extra exchange keys
  printf 'persistence.enabled = false\nexchange_client.bench {\n  exchange_url = "tcp://127.0.0.1:0"\n  exchange {\n    name = bench\n    topic = "bench/#"\n    ringbus { cap = 50000 }\n    %s\n  }\n}\n' "$1"
}

for payload in 64 1024; do
  start_sluice off "persistence.enabled = false"
  bench throughput --publishers 4 --subscribers 1 --qos 0 --payload $payload --pid "$broker" --label "capture-off"
  stop_broker
  start_sluice on "$(capture "")"
  bench throughput --publishers 4 --subscribers 1 --qos 0 --payload $payload --pid "$broker" --label "capture-on"
  stop_broker
  du -sh "$work/on/parquet" | sed 's/^/  parquet written: /'
  rm -rf "$work/off" "$work/on"
done
