# Shared by the benchmark scripts of this folder; source it from the repository root.
# Needs a built tree: mvn -q -DskipTests package
seconds=${SECONDS_PER_RUN:-10}
warmup=${WARMUP_SECONDS:-10}   # long enough for the JIT: its compile threads count as broker CPU
port=${BENCH_PORT:-18830}
work=$(mktemp -d)
broker=

bench() { # with bench_cpu set, the load generator runs on that core only
  ${bench_cpu:+taskset -c "$bench_cpu"} java -cp "examples/bench/target/bench-0.1.0-SNAPSHOT.jar:examples/bench/target/lib/*" \
    io.sluice.examples.bench.MqttBench "$@" --port "$port" --seconds "$seconds" --warmup "$warmup" 2>/dev/null
}

wait_port() {
  i=0
  until (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 300 ] || { echo "broker did not start" >&2; exit 1; }; sleep 0.1
  done
}

# start_sluice NAME [EXTRA_CONFIG]: starts Sluice on $port with its state and files in $work/NAME.
start_sluice() {
  mkdir -p "$work/$1"
  printf 'listeners.tcp.bind = "127.0.0.1:%s"\nlog.level = warn\npersistence.dir = "%s/state"\nparquet.dir = "%s/parquet"\n%s\n' \
    "$port" "$work/$1" "$work/$1" "${2:-}" > "$work/$1/sluice.conf"
  bin/sluice -c "$work/$1/sluice.conf" & broker=$!
  wait_port
}

stop_broker() {
  kill "$broker"; wait "$broker" 2>/dev/null || true
}

trap 'kill $broker 2>/dev/null || true; rm -rf "$work"' EXIT
