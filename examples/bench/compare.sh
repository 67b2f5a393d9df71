#!/usr/bin/env bash
# Runs every MQTT benchmark scenario against Sluice and against Mosquitto, one broker at a time,
# on this machine, and prints one result line per run. Needs a built tree
# (mvn -q -DskipTests package) and the Debian package `mosquitto`.
#   examples/bench/compare.sh            (SECONDS_PER_RUN and WARMUP_SECONDS override 10 s each)
set -eu
cd "$(dirname "$0")/../.."
. examples/bench/bench-lib.sh

scenarios() { # label pid
  bench throughput --publishers 4 --subscribers 1 --qos 0 --payload 64 --pid "$2" --label "$1"
  bench throughput --publishers 4 --subscribers 1 --qos 1 --payload 256 --pid "$2" --label "$1"
  bench throughput --publishers 1 --subscribers 50 --qos 0 --payload 64 --pid "$2" --label "$1"
  bench connect --concurrency 16 --pid "$2" --label "$1"
}

# Like for like: Mosquitto keeps no state on disk by default, so neither does Sluice here.
start_sluice sluice "persistence.enabled = false"
scenarios sluice "$broker"
stop_broker

printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 2048\nlog_dest none\n' "$port" \
  > "$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" & broker=$!
wait_port
scenarios "mosquitto-$(mosquitto -h | head -n 1 | awk '{print $3}')" "$broker"
stop_broker
