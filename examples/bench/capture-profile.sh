#!/usr/bin/env bash
# Where the pinned broker's CPU goes with and without capture: the load of capture-cost.sh (QoS 0
# fan-in, 4 publishers, 1 subscriber), the broker pinned to core 0 and the load generator to core 1,
# sampled by async-profiler (CPU time, every thread). Prints, per run, nanoseconds of broker CPU per
# delivered message by thread and the frames that cost the most; keeps the collapsed stacks.
#   examples/bench/capture-profile.sh
# DURABILITIES (default "off none wal"), PAYLOAD (default 64), WARMUP_SECONDS (default 120, a
# multiple of WINDOW), WINDOW (default 15: seconds per profile, also the measured seconds),
# OUT (default a new temporary folder) for the collapsed stacks. Needs 2 cores, and the profiler's
# jar from the Maven repository (fetched once, like any dependency).
set -eu
cd "$(dirname "$0")/../.."
window=${WINDOW:-15}
export WARMUP_SECONDS=${WARMUP_SECONDS:-120} SECONDS_PER_RUN=$window
. examples/bench/bench-lib.sh
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
profiler=tools.profiler:async-profiler:4.1

mvn -B -q dependency:copy -Dartifact=$profiler -DoutputDirectory="$work/ap" > /dev/null
(cd "$work/ap" && jar xf async-profiler-*.jar linux-x64/libasyncProfiler.so)
agent="$work/ap/linux-x64/libasyncProfiler.so"

# report FILE NS_TOTAL: ns per delivery by thread (digits folded), then the top frames by self time
report() {
  awk -v ns="$2" '{n = $NF; t += n; name = substr($0, 1, index($0, ";") - 1); sub(/ tid=[0-9]+\]/, "]", name); gsub(/[0-9]+/, "N", name); by[name] += n}
    END {for (k in by) printf "  %7.1f ns  %s\n", ns * by[k] / t, k}' "$1" | sort -rn | head -12
  echo "  top frames (self time):"
  awk -v ns="$2" '{n = $NF; t += n; $NF = ""; k = split($0, f, ";"); leaf = f[k]; sub(/ +$/, "", leaf); self[leaf] += n}
    END {for (k in self) printf "  %7.1f ns  %s\n", ns * self[k] / t, k}' "$1" | sort -rn | head -15
}

for durability in ${DURABILITIES:-off none wal}; do
  export SLUICE_JAVA_OPTS="-agentpath:$agent=start,event=itimer,interval=1ms,threads,loop=${window}s,file=$out/$durability-%t.collapsed,collapsed"
  if [ "$durability" = off ]; then start_sluice off "persistence.enabled = false"; else start_sluice "$durability" "$(capture_config "durability = $durability")"; fi
  taskset -a -cp 0 "$broker" > /dev/null
  BENCH_CPUS=1
  line=$(bench throughput --publishers 4 --subscribers 1 --qos 0 --payload "${PAYLOAD:-64}" --pid "$broker" --label "$durability")
  stop_broker
  echo "$line"
  # the profile of the first window after the warm-up, the measured one (give or take the client's start)
  profile=$(ls "$out/$durability"-*.collapsed | sed -n "$((WARMUP_SECONDS / window + 1))p")
  deliveries=$(echo "$line" | sed -n 's/.*: \([0-9]*\) deliveries.*/\1/p')
  cpu=$(echo "$line" | sed -n 's/.*broker CPU \([0-9.]*\) s.*/\1/p')
  report "$profile" "$(awk -v c="$cpu" -v d="$deliveries" 'BEGIN {print c * 1e9 / d}')"
done
echo "collapsed stacks: $out"
