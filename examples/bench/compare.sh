#!/usr/bin/env bash
# Runs every MQTT benchmark scenario against Sluice and against Mosquitto, one broker at a time,
# on this machine, and prints one result line per run. Needs: a built tree
# (mvn -q -DskipTests package) and the Debian package `mosquitto`.
#   examples/bench/compare.sh [SECONDS] [WARMUP_SECONDS]
set -eu
cd "$(dirname "$0")/../.."
seconds=${1:-10}
warmup=${2:-10}   # long enough for the JIT: its compile threads count as broker CPU
port=18830
bench() {
  java -cp "examples/bench/target/bench-0.1.0-SNAPSHOT.jar:examples/bench/target/lib/*" \
    io.sluice.examples.bench.MqttBench "$@" --port "$port" --seconds "$seconds" --warmup "$warmup" 2>/dev/null
}
scenarios() { # label pid
  bench throughput --publishers 4 --subscribers 1 --qos 0 --payload 64 --pid "$2" --label "$1"
  bench throughput --publishers 4 --subscribers 1 --qos 1 --payload 256 --pid "$2" --label "$1"
  bench throughput --publishers 1 --subscribers 50 --qos 0 --payload 64 --pid "$2" --label "$1"
  bench connect --concurrency 16 --pid "$2" --label "$1"
}
wait_port() {
  i=0
  until (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 100 ] || { echo "broker did not start" >&2; exit 1; }; sleep 0.1
  done
}

conf=$(mktemp -d)
trap 'rm -rf "$conf"; kill $broker 2>/dev/null || true' EXIT

printf 'listeners.tcp.bind = "127.0.0.1:%s"\nlog.level = warn\n' "$port" > "$conf/sluice.conf"
bin/sluice -c "$conf/sluice.conf" & broker=$!
wait_port
scenarios sluice $broker
kill $broker; wait $broker 2>/dev/null || true

printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 2048\nlog_dest none\n' "$port" \
  > "$conf/mosquitto.conf"
mosquitto -c "$conf/mosquitto.conf" & broker=$!
wait_port
scenarios "mosquitto-$(mosquitto -h | head -n 1 | awk '{print $3}')" $broker
kill $broker; wait $broker 2>/dev/null || true
