#!/usr/bin/env bash
# Live MQTT throughput while a large query runs, against the same run without one: QoS 0 fan-in
# (4 publishers, 64 B) into a broker that captures it, after filling the exchange with history.
#   examples/bench/query-load.sh         (SECONDS_PER_RUN and WARMUP_SECONDS override 10 s each)
set -eu
cd "$(dirname "$0")/../.."
. examples/bench/bench-lib.sh

start_sluice query "$(printf 'persistence.enabled = false\nexchange_client.bench {\n  exchange_url = "tcp://127.0.0.1:18840"\n  exchange {\n    name = bench\n    topic = "bench/#"\n    ringbus { cap = 50000 }\n  }\n}\n')"
# History to scan: the warm-up and the first run leave millions of captured records behind.
bench throughput --publishers 4 --subscribers 1 --qos 0 --payload 64 --pid "$broker" --label "no-query"
bench throughput --publishers 4 --subscribers 1 --qos 0 --payload 64 --pid "$broker" --label "no-query"
bench throughput --publishers 4 --subscribers 1 --qos 0 --payload 64 --pid "$broker" --label "with-query" \
  --query-url tcp://127.0.0.1:18840
du -sh "$work/query/parquet" | sed 's/^/captured history: /'
stop_broker
