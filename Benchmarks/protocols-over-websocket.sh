#!/usr/bin/env bash
# MQTT, NATS and STOMP over WebSocket against the same brokers' plain TCP listeners (needs: apt-get install nats-server
# mosquitto rabbitmq-server time).
#
#   Benchmarks/protocols-over-websocket.sh [rounds]       (default 3)
#
# Fan-out to 1,000 subscribers, 100 broadcasts every 20 ms, through mosquitto (QoS 0), nats-server and RabbitMQ, each by
# its TCP listener (mqtt://, nats://, stomp://) and by its WebSocket listener (mqtt+ws://, nats+ws://, stomp+ws://): delivery and spread p50/p99,
# lost, and the harness's CPU time (the whole process's, setup and reports included) per message received; per
# protocol the median over the rounds and the ratio of WebSocket to TCP (what the WebSocket layer costs the harness).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
chmod 777 "$work"  # mosquitto started as root runs as its own user and makes its socket here
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
mqtt_port=$(free_port); mqtt_ws_port=$(free_port); nats_port=$(free_port); nats_ws_port=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 10000\nlistener %s 127.0.0.1\nprotocol websockets\nbind_interface lo\n' \
    "$mqtt_port" "$mqtt_ws_port" >"$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >/dev/null 2>&1 & pids=($!)
printf 'host: 127.0.0.1\nport: %s\nwebsocket {\n  listen: "127.0.0.1:%s"\n  no_tls: true\n}\n' "$nats_port" "$nats_ws_port" \
    >"$work/nats.conf"
nats-server -c "$work/nats.conf" >/dev/null 2>&1 & pids+=($!)
stomp_port=$(free_port); stomp_ws_port=$(free_port)
printf 'listeners.tcp = none\nstomp.listeners.tcp.1 = 127.0.0.1:%s\nweb_stomp.tcp.ip = 127.0.0.1\nweb_stomp.tcp.port = %s\n' \
    "$stomp_port" "$stomp_ws_port" >"$work/rabbitmq.conf"
echo '[rabbitmq_stomp,rabbitmq_web_stomp].' >"$work/enabled_plugins"
epmd_port=$(free_port)
# Its own port mapper, which -kill stops even while the node it served is still on its books.
ERL_EPMD_ADDRESS=127.0.0.1 ERL_EPMD_PORT=$epmd_port epmd -daemon -relaxed_command_check
HOME=$work RABBITMQ_CONFIG_FILE=$work/rabbitmq RABBITMQ_ENABLED_PLUGINS_FILE=$work/enabled_plugins \
    RABBITMQ_MNESIA_BASE=$work/mnesia RABBITMQ_LOG_BASE=$work/log RABBITMQ_NODENAME=benchws@localhost \
    RABBITMQ_DIST_PORT=$(free_port) ERL_EPMD_ADDRESS=127.0.0.1 ERL_EPMD_PORT=$epmd_port \
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS='-kernel inet_dist_use_interface {127,0,0,1}' \
    setsid /usr/lib/rabbitmq/bin/rabbitmq-server >/dev/null 2>&1 & rabbit=$!
trap 'kill "${pids[@]}" 2>/dev/null; kill -9 -- -"$rabbit" 2>/dev/null; ERL_EPMD_PORT=$epmd_port epmd -kill >/dev/null 2>&1; rm -rf "$work"' EXIT
for _ in $(seq 600); do  # RabbitMQ takes seconds to start
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $stomp_ws_port))" 2>/dev/null && break
    sleep 0.1
done
sleep 1

subscribers=1000
source Benchmarks/measure-fanout.sh

for protocol in mqtt nats stomp; do
    port_var="${protocol}_port"; ws_port_var="${protocol}_ws_port"
    destination=bench; [ "$protocol" = stomp ] && destination=topic/bench
    plain="$protocol://127.0.0.1:${!port_var}/$destination"; ws="$protocol+ws://127.0.0.1:${!ws_port_var}/$destination"
    : >"$work/plain"; : >"$work/ws"
    for _ in $(seq "$rounds"); do
        measure_fanout "$plain" >>"$work/plain"
        measure_fanout "$ws" >>"$work/ws"
    done
    python3 - "$work/plain" "$work/ws" "$plain" "$ws" <<'PY'
import statistics, sys
def medians(path):
    rows = [list(map(float, line.split())) for line in open(path)]
    return [statistics.median(column) for column in zip(*rows)], [row[5] for row in rows]
(plain, plain_cpu), (ws, ws_cpu) = medians(sys.argv[1]), medians(sys.argv[2])
for name, m, cpu in ((sys.argv[3], plain, plain_cpu), (sys.argv[4], ws, ws_cpu)):
    print(f"{name:<42} 1000 subscribers: delivery p50 {m[0]:.0f} µs, p99 {m[1]:.0f} µs; spread p50 {m[2]:.0f} µs, "
          f"p99 {m[3]:.0f} µs; lost {m[4]:.0f}; CPU {m[5]:.2f} µs per message received "
          f"({' '.join(f'{c:.2f}' for c in cpu)})")
print(f"  WebSocket / TCP, CPU per message received: {ws[5] / plain[5]:.3f}")
PY
done
