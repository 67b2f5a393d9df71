#!/usr/bin/env bash
# Connection storms, Sluice against Mosquitto, each broker started on core 0 (taskset -c 0: the JVM then
# sizes itself for one core, one event loop and the serial collector, as Mosquitto runs one thread) and
# the load generator on core 1, so connections per broker CPU-second compare the brokers' own work:
#   tcp    CONNECT/CONNACK/DISCONNECT cycles over plain TCP, 16 at a time;
#   tls    the same over TLS, a full handshake each (Sluice's listeners.ssl, Mosquitto's TLS listener);
#   storm  10,000 new connections, 500 at a time, kept open, while a connected probe measures
#          publish-to-receive round trips: how responsive the broker stays for existing clients.
# For tcp and tls both brokers are started fresh, side by side, and warmed up; then they take turns,
# Sluice, Mosquitto, Sluice, Mosquitto (PAIRS pairs, 2 by default), the one not measured being paused
# (SIGSTOP), so both meet the same machine in the same minutes and each window follows one of the
# other broker's. Every window also reports each core's load: what else ran on core 0 beside the
# broker, and time stolen by the hypervisor.
# Needs a built tree (mvn -q -DskipTests package), the Debian packages mosquitto and openssl.
#   examples/bench/connect-storm.sh [tcp] [tls] [storm]      (default: all three)
# WARMUP_SECONDS (20) warms each broker up once, SECONDS_PER_RUN (15) is each measured window, each
# after REWARM_SECONDS (8) of the same load (the load generator is a new JVM per window).
# BROKERS="sluice" or "mosquitto" runs one of them.
set -eu
cd "$(dirname "$0")/../.."
BENCH_CPUS=1
BROKER_CPUS=0
SECONDS_PER_RUN=${SECONDS_PER_RUN:-15}
WARMUP_SECONDS=${WARMUP_SECONDS:-20}
. examples/bench/bench-lib.sh
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
runs=${*:-tcp tls storm}
brokers=${BROKERS:-sluice mosquitto}
pairs=${PAIRS:-2}
rewarm=${REWARM_SECONDS:-8}
base_port=$port
mosquitto_label="mosquitto-$(mosquitto -h | head -n 1 | awk '{print $3}')"
declare -A pids=()
trap 'for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

# A self-signed EC P-256 certificate for 127.0.0.1, as a small deployment would use.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
chmod a+rx "$work"; chmod a+r "$work/key.pem" # Mosquitto started as root reads them as user mosquitto

# Sluice listens on base_port (plain) and base_port + 1 (TLS), Mosquitto on base_port + 2 and + 3.
plain_port() { [ "$1" = sluice ] && echo "$base_port" || echo $((base_port + 2)); }
tls_port() { echo $(($(plain_port "$1") + 1)); }
label() { [ "$1" = sluice ] && echo sluice || echo "$mosquitto_label"; }

# What a default OpenSSL client negotiates with the TLS listener (protocol, cipher, key exchange, how many
# session tickets the server sends after a full handshake), so both brokers' TLS work can be compared.
negotiated() { # broker
  local p; p=$(tls_port "$1")
  # an MQTT CONNECT, so the server writes (a CONNACK): BoringSSL sends its tickets with its first write
  out=$( (printf '\x10\x0d\x00\x04MQTT\x04\x02\x00\x3c\x00\x01p'; sleep 3) | openssl s_client -connect "127.0.0.1:$p" -msg 2>&1 | tr -d '\000' || true)
  echo "$(label "$1") tls, openssl s_client: $(grep -m1 -o 'TLSv1.[23], Cipher is .*' <<<"$out"); $(grep -m1 'Server Temp Key' <<<"$out");" \
    "$(grep -m1 'Peer signature type' <<<"$out"); session tickets sent: $(grep -c 'NewSessionTicket' <<<"$out")"
}

start() { # broker: started on core 0, listening on both its ports
  if [ "$1" = sluice ]; then
    port=$(plain_port sluice) start_sluice sluice "persistence.enabled = false
listeners.ssl { bind = \"127.0.0.1:$(tls_port sluice)\", keyfile = \"$work/key.pem\", certfile = \"$work/cert.pem\" }"
  else
    # set_tcp_nodelay: TCP_NODELAY on every connection, as Sluice sets it. Without it, Nagle's algorithm holds
    # back the end of Mosquitto's TLS handshakes until the client's delayed ACK (about 250 handshakes a
    # second instead of 1,200 in a trial run, at a third less work per CPU-second).
    printf 'per_listener_settings false\nallow_anonymous true\nmax_queued_messages 2048\nlog_dest none\nset_tcp_nodelay true\n' \
      > "$work/mosquitto.conf"
    printf 'listener %s 127.0.0.1\nlistener %s 127.0.0.1\ncertfile %s\nkeyfile %s\n' "$(plain_port mosquitto)" \
      "$(tls_port mosquitto)" "$work/cert.pem" "$work/key.pem" >> "$work/mosquitto.conf"
    taskset -c "$BROKER_CPUS" mosquitto -c "$work/mosquitto.conf" & broker=$!
  fi
  pids[$1]=$broker
  port=$(plain_port "$1") wait_port
  port=$(tls_port "$1") wait_port
}

stop() { # broker
  kill -CONT "${pids[$1]}"; kill "${pids[$1]}"; wait "${pids[$1]}" 2>/dev/null || true
  unset "pids[$1]"
}

# CPU seconds the JVM's JIT compiler threads have used so far (0 for Mosquitto): part of the broker's CPU time,
# reported so that a window still paying for compilation shows it.
jit_seconds() { # pid
  local t ticks=0
  for t in /proc/"$1"/task/*; do
    case $(cat "$t/comm" 2>/dev/null) in
      C1\ Compiler* | C2\ Compiler*) ticks=$((ticks + $(sed 's/^.*) //' "$t/stat" | awk '{ print $12 + $13 }')));;
    esac
  done
  echo "scale=2; $ticks / 100" | bc
}

window() { # scenario broker warmup-seconds [label suffix]
  local p tls=()
  if [ "$1" = tls ]; then p=$(tls_port "$2"); tls=(--tls true); else p=$(plain_port "$2"); fi
  port=$p warmup=$3 bench connect --concurrency 16 "${tls[@]}" --pid "${pids[$2]}" --label "$(label "$2")${4:-}"
}

# One scenario, tcp or tls: fresh brokers, warmed up one after the other, then measured in turns.
turns() { # scenario
  local b i
  for b in $brokers; do
    start "$b"
    [ "$1" = tls ] && negotiated "$b"
    seconds=1 window "$1" "$b" "$WARMUP_SECONDS" >/dev/null
    kill -STOP "${pids[$b]}"
  done
  for i in $(seq "$pairs"); do
    for b in $brokers; do
      kill -CONT "${pids[$b]}"
      echo "TIME_WAIT sockets before $(label "$b") ($i): $(awk '/^TCP:/ { print $7 }' /proc/net/sockstat)"
      jit=$(jit_seconds "${pids[$b]}")
      window "$1" "$b" "$rewarm" " ($i)" | tee -a "$work/$1.txt"
      echo "JIT compiler threads of $(label "$b") ($i), re-warm and window: $(echo "$(jit_seconds "${pids[$b]}") - $jit" | bc) s"
      kill -STOP "${pids[$b]}"
    done
  done
  for b in $brokers; do stop "$b"; done
  summary "$1"
}

# Over all of a scenario's windows: each broker's connections per CPU-second, and Sluice's over Mosquitto's.
summary() { # scenario
  awk -v s="$1" '{ for (i = 2; i < NF; i++) {
        if ($i == "connections" && $(i + 1) == "in") c[$1] += $(i - 1)
        if ($i == "CPU" && $(i - 1) == "broker") t[$1] += $(i + 1) } }
    END { for (b in c) { r[b] = c[b] / t[b]; if (b != "sluice") other = b
        printf "%s %s, all windows: %d connections, broker CPU %.2f s = %.0f per CPU-second\n", b, s, c[b], t[b], r[b] }
      if (("sluice" in r) && other != "") printf "%s: sluice / %s = %.2fx\n", s, other, r["sluice"] / r[other] }' "$work/$1.txt"
}

for run in $runs; do
  case $run in
    tcp | tls) turns "$run" ;;
    storm)
      for b in $brokers; do
        start "$b"
        port=$(plain_port "$b") bench storm --connections 10000 --concurrency 500 --label "$(label "$b")"
        stop "$b"
      done ;;
  esac
done
