#!/usr/bin/env bash
# Connection storms, Sluice against Mosquitto, one broker at a time, each started on core 0
# (taskset -c 0: the JVM then sizes itself for one core, one event loop and the serial collector,
# as Mosquitto runs one thread) and the load generator on core 1, so connections per broker
# CPU-second compare the brokers' own work:
#   tcp    CONNECT/CONNACK/DISCONNECT cycles over plain TCP, 16 at a time;
#   tls    the same over TLS, a full handshake each (Sluice's listeners.ssl, Mosquitto's TLS listener);
#   storm  10,000 new connections, 500 at a time, kept open, while a connected probe measures
#          publish-to-receive round trips: how responsive the broker stays for existing clients.
# Needs a built tree (mvn -q -DskipTests package), the Debian packages mosquitto and openssl.
#   examples/bench/connect-storm.sh [tcp] [tls] [storm]      (default: all three)
# SECONDS_PER_RUN and WARMUP_SECONDS override 10 s each; BROKERS="sluice" or "mosquitto" runs one of them.
set -eu
cd "$(dirname "$0")/../.."
BENCH_CPUS=1
BROKER_CPUS=0
. examples/bench/bench-lib.sh
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
tls_port=$((port + 1))
runs=${*:-tcp tls storm}
brokers=${BROKERS:-sluice mosquitto}

# A self-signed EC P-256 certificate for 127.0.0.1, as a small deployment would use.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
chmod a+rx "$work"; chmod a+r "$work/key.pem" # Mosquitto started as root reads them as user mosquitto

# What a default OpenSSL client negotiates with the TLS listener (protocol, cipher, key exchange, how many
# session tickets the server sends after a full handshake), so both brokers' TLS work can be compared.
negotiated() { # label
  port=$tls_port wait_port # the plain listener may be up before the TLS one
  out=$( (sleep 3) | openssl s_client -connect "127.0.0.1:$tls_port" -msg 2>&1 || true)
  echo "$1 tls, openssl s_client: $(grep -m1 -o 'TLSv1.[23], Cipher is .*' <<<"$out"); $(grep -m1 'Server Temp Key' <<<"$out");" \
    "$(grep -m1 'Peer signature type' <<<"$out"); session tickets sent: $(grep -c 'NewSessionTicket' <<<"$out")"
}

scenarios() { # label pid
  for run in $runs; do
    case $run in
      tcp) bench connect --concurrency 16 --pid "$2" --label "$1" ;;
      tls) negotiated "$1"; port=$tls_port bench connect --concurrency 16 --tls true --pid "$2" --label "$1" ;;
      storm) bench storm --connections 10000 --concurrency 500 --label "$1" ;;
    esac
  done
}

if [[ " $brokers " == *" sluice "* ]]; then
  start_sluice sluice "persistence.enabled = false
listeners.ssl { bind = \"127.0.0.1:$tls_port\", keyfile = \"$work/key.pem\", certfile = \"$work/cert.pem\" }"
  scenarios sluice "$broker"
  stop_broker
fi
[[ " $brokers " == *" mosquitto "* ]] || exit 0

printf 'per_listener_settings false\nallow_anonymous true\nmax_queued_messages 2048\nlog_dest none\n' > "$work/mosquitto.conf"
printf 'listener %s 127.0.0.1\nlistener %s 127.0.0.1\ncertfile %s\nkeyfile %s\n' "$port" "$tls_port" \
  "$work/cert.pem" "$work/key.pem" >> "$work/mosquitto.conf"
taskset -c 0 mosquitto -c "$work/mosquitto.conf" & broker=$!
wait_port
scenarios "mosquitto-$(mosquitto -h | head -n 1 | awk '{print $3}')" "$broker"
stop_broker
