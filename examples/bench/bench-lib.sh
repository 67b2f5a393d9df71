# Shared by the benchmark scripts of this folder; source it from the repository root.
# Needs a built tree: mvn -q -DskipTests package
seconds=${SECONDS_PER_RUN:-10}
warmup=${WARMUP_SECONDS:-10}   # long enough for the JIT: its compile threads count as broker CPU
port=${BENCH_PORT:-18830}
work=$(mktemp -d)
broker=

# BENCH_CPUS (a taskset CPU list) pins the load generator, e.g. away from a pinned broker.
bench() {
  ${BENCH_CPUS:+taskset -c "$BENCH_CPUS"} java -cp "examples/bench/target/bench-0.1.0-SNAPSHOT.jar:examples/bench/target/lib/*" \
    io.sluice.examples.bench.MqttBench "$@" --port "$port" --seconds "$seconds" --warmup "$warmup" 2>/dev/null
}

wait_port() {
  i=0
  until (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 300 ] || { echo "broker did not start" >&2; exit 1; }; sleep 0.1
  done
}

# start_sluice NAME [EXTRA_CONFIG]: starts Sluice on $port with its state and files in $work/NAME.
# SLUICE_BIN runs another build's bin/sluice (to compare two builds with the same driver).
# BROKER_CPUS (a taskset CPU list) starts it on those cores, so the JVM sizes its threads for them.
start_sluice() {
  mkdir -p "$work/$1"
  printf 'listeners.tcp.bind = "127.0.0.1:%s"\nlog.level = warn\npersistence.dir = "%s/state"\nparquet.dir = "%s/parquet"\n%s\n' \
    "$port" "$work/$1" "$work/$1" "${2:-}" > "$work/$1/sluice.conf"
  ${BROKER_CPUS:+taskset -c "$BROKER_CPUS"} ${SLUICE_BIN:-bin/sluice} -c "$work/$1/sluice.conf" & broker=$!
  wait_port
}

# capture_config EXTRA: a configuration with persistence off and one exchange, bench, capturing
# bench/# (the topics of MqttBench) with ringbus.cap CAP (default 10000, the default) and the
# exchange keys EXTRA, e.g. "durability = wal".
capture_config() {
  printf 'persistence.enabled = false\nexchange_client.bench {\n  exchange_url = "tcp://127.0.0.1:*"\n  exchange {\n    name = bench\n    topic = "bench/#"\n    ringbus { cap = %s }\n    %s\n  }\n}\n' "${CAP:-10000}" "$1"
}

stop_broker() {
  kill "$broker"; wait "$broker" 2>/dev/null || true
}

trap 'kill $broker 2>/dev/null || true; rm -rf "$work"' EXIT
