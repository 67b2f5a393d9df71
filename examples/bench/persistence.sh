#!/usr/bin/env bash
# Durable broker state: QoS 1 throughput to persistent-session subscribers with persistence on and
# off, then start-up time with 100,000 retained messages and 10,000 persistent sessions.
#   examples/bench/persistence.sh        (SECONDS_PER_RUN and WARMUP_SECONDS override 10 s each)
set -eu
cd "$(dirname "$0")/../.."
. examples/bench/bench-lib.sh

for flush in off interval always; do
  if [ $flush = off ]; then config="persistence.enabled = false"; else config="persistence.flush = $flush"; fi
  start_sluice "qos1-$flush" "$config"
  bench throughput --publishers 4 --subscribers 1 --qos 1 --payload 256 --persistent true --pid "$broker" \
    --label "persistence-$flush"
  stop_broker
done

start_sluice startup "log.level = info"
java -cp "examples/bench/target/bench-0.1.0-SNAPSHOT.jar:examples/bench/target/lib/*" \
  io.sluice.examples.bench.MqttBench populate --port "$port" --sessions 10000 --retained 100000 --payload 64 2>/dev/null
stop_broker
du -sh "$work/startup/state" | sed 's/^/state on disk: /'
for attempt in 1 2 3; do
  start=$(date +%s%N)
  bin/sluice -c "$work/startup/sluice.conf" > "$work/startup.log" 2>&1 & broker=$!
  wait_port
  end=$(date +%s%N)
  echo "start-up $attempt: $(( (end - start) / 1000000 )) ms to accepting connections; $(grep -o 'restored from.*' "$work/startup.log" || true)"
  stop_broker
done
