#!/usr/bin/env bash
# What stream capture costs the broker: QoS 0 fan-in (4 publishers, 64 B and 1 KB) with no
# exchange, then with an exchange capturing every message kept in memory until its Parquet file is
# written (durability = none), then through the exchange's write-ahead log (durability = wal, the
# default), in one session on this machine. Prints one result line per run, and after each run
# with capture the share of the same round's capture-off throughput it kept.
#   examples/bench/capture-cost.sh
# SECONDS_PER_RUN and WARMUP_SECONDS override 10 s each; ROUNDS (default 1) repeats the whole
# sequence, interleaved, since runs on a shared machine move by 15 % or more from one to the next.
# CAP sets ringbus.cap (default 10000, the default). PAYLOADS (default "64 1024") the payload sizes.
#
# RATE (messages a second, all publishers together) offers a fixed load instead of as much as the
# broker takes: then compare the broker CPU each delivery cost, not deliveries a second. After each
# capture run the script prints both ratios to the round's capture-off run.
#
# PIN=1 (needs 2 cores): every thread of the broker is pinned to core 0 (taskset -a -cp 0 <pid>
# after start; threads started later inherit it) and the load generator runs on core 1, so the
# broker has the same CPU budget with and without capture, and the ratio is capture's CPU cost,
# not contention with the generator.
set -eu
cd "$(dirname "$0")/../.."
. examples/bench/bench-lib.sh

if [ "${PIN:-0}" = 1 ]; then
  BENCH_CPUS=1
  pin_broker() { taskset -a -cp 0 "$broker" > /dev/null; }
else
  pin_broker() { :; }
fi

run() { # label: one measured run against the started broker
  pin_broker
  bench throughput --publishers 4 --subscribers 1 --qos 0 --payload "$payload" ${RATE:+--rate "$RATE"} --pid "$broker" --label "$1"
}

rate() { # the deliveries per second of a result line
  sed -n 's/.* = \([0-9]*\)\/s;.*/\1/p'
}

per_cpu() { # the deliveries per broker CPU-second of a result line
  sed -n 's/.* = \([0-9]*\) deliveries per CPU-second.*/\1/p'
}

for round in $(seq "${ROUNDS:-1}"); do
  for payload in ${PAYLOADS:-64 1024}; do
    echo "round $round, payload $payload B, cap ${CAP:-10000}, pinned ${PIN:-0}"
    start_sluice off "persistence.enabled = false"
    line=$(run capture-off)
    stop_broker
    echo "$line"
    off=$(echo "$line" | rate)
    off_cpu=$(echo "$line" | per_cpu)
    for durability in none wal; do
      start_sluice "$durability" "$(capture_config "durability = $durability")"
      line=$(run "capture-$durability")
      stop_broker
      echo "$line"
      echo "  kept $(( 100 * $(echo "$line" | rate) / off )) % of capture-off deliveries a second, $(( 100 * $(echo "$line" | per_cpu) / off_cpu )) % of its deliveries per broker CPU-second"
      du -sh --exclude=.wal "$work/$durability/parquet" | sed 's/^/  parquet written (without the write-ahead log): /'
    done
    rm -rf "$work/off" "$work/none" "$work/wal"
  done
done
