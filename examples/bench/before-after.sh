#!/usr/bin/env bash
# Compares the forwarding throughput of built Sluice trees (checkouts of two commits, say) in one
# run: the message scenarios of compare.sh, alternating between the trees ROUNDS times, with the
# broker pinned to CPU 0 and the load generator (this tree's MqttBench) to CPU 1, so that each
# figure is the broker's own CPU. Each result line is labelled with the tree's folder name.
#   examples/bench/before-after.sh TREE...        (for example: ../before .)
# Each tree must be built (mvn -q -DskipTests package). SECONDS_PER_RUN, WARMUP_SECONDS and ROUNDS
# (default 2) override.
set -eu
trees=()
for tree in "$@"; do trees+=("$(cd "$tree" && pwd)"); done
cd "$(dirname "$0")/../.."
. examples/bench/bench-lib.sh
rounds=${ROUNDS:-2}
BENCH_CPUS=1

scenarios() { # label pid
  bench throughput --publishers 4 --subscribers 1 --qos 0 --payload 64 --pid "$2" --label "$1"
  bench throughput --publishers 4 --subscribers 1 --qos 1 --payload 256 --pid "$2" --label "$1"
  bench throughput --publishers 1 --subscribers 50 --qos 0 --payload 64 --pid "$2" --label "$1"
}

# start_tree LABEL TREE: starts TREE's bin/sluice with persistence off (as compare.sh), pinned to CPU 0.
start_tree() {
  mkdir -p "$work/$1"
  printf 'listeners.tcp.bind = "127.0.0.1:%s"\nlog.level = warn\npersistence.enabled = false\n' "$port" \
    > "$work/$1/sluice.conf"
  taskset -c 0 "$2/bin/sluice" -c "$work/$1/sluice.conf" & broker=$!
  wait_port
  taskset -a -cp 0 "$broker" > /dev/null
}

for round in $(seq "$rounds"); do
  for tree in "${trees[@]}"; do
    start_tree "$(basename "$tree")-$round" "$tree"
    scenarios "$(basename "$tree")" "$broker"
    stop_broker
  done
done
