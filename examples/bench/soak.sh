#!/usr/bin/env bash
# Soak run (docs/reliability.md): mixed QoS 0/1/2 traffic, connection churn, client-id takeovers,
# shared-subscription members that come and go, queries of a capturing exchange, and a kill -9 and
# restart of the broker every KILL_MINUTES; then checks that every acknowledged message reached the
# persistent sessions and was captured once, and that RSS and heap stayed flat. Writes samples.csv,
# summary.txt and soak.png to OUT (default target/soak under examples/bench).
#   examples/bench/soak.sh          (DURATION minutes, default 30; KILL_MINUTES, default 4;
#                                    PUBLISHERS and RATE per publisher, default 3 and 100 msg/s)
# Needs a built tree: mvn -q -DskipTests package
set -eu
cd "$(dirname "$0")/../.."
out=${OUT:-examples/bench/target/soak}
rm -rf "$out"; mkdir -p "$out"
classpath="examples/bench/target/bench-0.1.0-SNAPSHOT.jar:examples/bench/target/lib/*"
status=0
java -cp "$classpath" io.sluice.examples.bench.SoakDriver --sluice bin/sluice --work "$out" \
  --port "${BENCH_PORT:-18831}" --query-port "${QUERY_PORT:-18841}" --minutes "${DURATION:-30}" \
  --kill-minutes "${KILL_MINUTES:-4}" --publishers "${PUBLISHERS:-3}" --rate "${RATE:-100}" \
  --java-opts "${SLUICE_JAVA_OPTS:--Xmx512m -XX:NativeMemoryTracking=summary}" || status=$?
java -Djava.awt.headless=true -cp "$classpath" io.sluice.examples.bench.SoakPlot "$out/samples.csv" "$out/soak.png"
echo "samples: $out/samples.csv, plot: $out/soak.png, summary: $out/summary.txt"
exit $status
