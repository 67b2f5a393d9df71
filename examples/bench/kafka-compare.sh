#!/usr/bin/env bash
# Compares Sluice's Kafka listener with Apache Kafka 4.3.1 on this machine, one broker at a time,
# with the same client (kafka-clients 4.3.1, default settings: idempotent, acks=all) and the same
# JVM options; the broker is pinned to CPU 0 and the client to CPU 1 (taskset). Prints one result
# line per run. Needs a built tree (mvn -q -DskipTests package) and, once, network access to resolve
# Apache Kafka's jars into the local Maven repository.
#   examples/bench/kafka-compare.sh
#   SECONDS_PER_RUN=20 WARMUP_SECONDS=10 REPLAY_RECORDS=10000000 WARMUP_REPLAYS=2 ROUNDS=1 BROKER_OPTS="-Xms1g -Xmx1g" (defaults)
# Before the measured replays, each broker serves WARMUP_REPLAYS whole replays that are printed with
# "warmup" in their label: the fetch path runs about a thousand times per replay, so the JIT, on the
# broker's one core, is still compiling it during the first few. ONLY=replay runs the replays alone
# (no produce, no latency), and REPLAY_CPU=1 prints the broker CPU of each replay command split into user
# and kernel time (over the whole client run, its start-up included, so it exceeds broker_cpu_s).
set -eu
cd "$(dirname "$0")/../.."
seconds=${SECONDS_PER_RUN:-20}
warmup=${WARMUP_SECONDS:-10}
replay=${REPLAY_RECORDS:-10000000}
rounds=${ROUNDS:-1}
warmup_replays=${WARMUP_REPLAYS:-2}
only=${ONLY:-all}
broker_opts=${BROKER_OPTS:-"-Xms1g -Xmx1g -XX:+UseG1GC"}
port=${BENCH_KAFKA_PORT:-19092}
mqtt_port=${BENCH_PORT:-18830}
work=$(mktemp -d)
broker=
trap 'kill $broker 2>/dev/null || true; rm -rf "$work"' EXIT

client() {
  taskset -c 1 java -cp "examples/bench/target/bench-0.1.0-SNAPSHOT.jar:examples/bench/target/lib/*" \
    io.sluice.examples.bench.KafkaBench "$@" --bootstrap "127.0.0.1:$port" 2>/dev/null
}

wait_port() {
  i=0
  until (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 600 ] || { echo "broker did not start on port $1" >&2; exit 1; }; sleep 0.1
  done
}

start_sluice() {
  mkdir -p "$work/sluice"
  cat > "$work/sluice/sluice.conf" <<CONF
listeners.tcp.bind = "127.0.0.1:$mqtt_port"
listeners.kafka.bind = "127.0.0.1:$port"
log.level = warn
persistence.enabled = false
streams.dir = "$work/sluice/streams"
streams.latency { topic = "latency/#" }
CONF
  SLUICE_JAVA_OPTS="$broker_opts" taskset -c 0 bin/sluice -c "$work/sluice/sluice.conf" > "$work/sluice/out.log" 2>&1 &
  broker=$!
  wait_port $port
}

start_kafka() {
  mkdir -p "$work/kafka"
  if [ ! -s "$work/kafka.cp" ]; then
    mvn -q -f examples/bench/kafka-broker/pom.xml dependency:build-classpath -Dmdep.outputFile="$work/kafka.cp" \
      -Dmdep.includeScope=runtime
  fi
  cport=$((port + 1))
  sed -e "s/CPORT/$cport/g" -e "s/PORT/$port/g" -e "s#DIR#$work/kafka/data#" examples/bench/kafka-broker/server.properties \
    > "$work/kafka/server.properties"
  cp="$(cat "$work/kafka.cp")"
  java -cp "$cp" kafka.tools.StorageTool format -t "$(java -cp "$cp" kafka.tools.StorageTool random-uuid)" \
    -c "$work/kafka/server.properties" > "$work/kafka/format.log" 2>&1
  taskset -c 0 java $broker_opts -Dlog4j2.configurationFile=examples/bench/kafka-broker/log4j2.properties \
    -cp "$cp" kafka.Kafka "$work/kafka/server.properties" > "$work/kafka/out.log" 2>&1 &
  broker=$!
  wait_port $port
}

stop_broker() {
  kill "$broker"; wait "$broker" 2>/dev/null || true
  broker=
}

# The broker's user and system CPU seconds so far (utime and stime of /proc/<pid>/stat, in ticks of 1/100 s).
cpu_split() {
  awk '{ sub(/^.*\) /, ""); printf "%.2f %.2f", $12 / 100, $13 / 100 }' "/proc/$broker/stat"
}

replay_round() { # label
  read -r user0 sys0 <<< "$(cpu_split)"
  client replay --topic replay --records "$replay" --pid "$broker" --label "$1"
  if [ "${REPLAY_CPU:-0}" = 1 ]; then
    read -r user1 sys1 <<< "$(cpu_split)"
    awk -v l="$1" -v u0="$user0" -v u1="$user1" -v s0="$sys0" -v s1="$sys1" \
      'BEGIN { printf "%s replay broker_user_s=%.2f broker_sys_s=%.2f\n", l, u1 - u0, s1 - s0 }'
  fi
}

scenarios() { # label
  client create --topic bench --partitions 1
  client create --topic replay --partitions 1
  if [ "$only" != replay ]; then
    for round in $(seq "$rounds"); do
      client produce --topic bench --payload 1024 --seconds "$seconds" --warmup "$warmup" --pid "$broker" --label "$1"
    done
  fi
  client fill --topic replay --payload 100 --records "$replay" --label "$1"
  for round in $(seq "$warmup_replays"); do
    replay_round "$1-warmup"
  done
  for round in $(seq "$rounds"); do
    replay_round "$1"
  done
}

latencies() { # label, then "mqtt" for Sluice's MQTT-to-Kafka run
  [ "$only" != replay ] || return 0
  if [ "${2:-}" = mqtt ]; then
    client latency --topic latency --rate 1000 --seconds "$seconds" --warmup 5 --mqtt-port "$mqtt_port" \
      --mqtt-topic latency/e2e --label "$1"
  fi
  client create --topic klatency --partitions 1
  client latency --topic klatency --rate 1000 --seconds "$seconds" --warmup 5 --label "$1"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
start_sluice
scenarios sluice
latencies sluice mqtt
stop_broker
echo "load between: $(cut -d' ' -f1-3 /proc/loadavg)"

start_kafka
scenarios "kafka-4.3.1"
latencies "kafka-4.3.1"
stop_broker
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
