#!/usr/bin/env bash
# The protocols described in lines (--protocol phoenix, actioncable, graphql) against the raw ws:// path, 1,000
# subscribers each (needs: apt-get install python3-websockets time; Strawberry from PyPI in the virtual environment
# .ci/run makes, ~/.cache/bench-interop-venv).
#
#   Benchmarks/described-protocols.sh [rounds]       (default 3)
#
# Fan-out to 1,000 subscribers, 50 broadcasts every 200 ms, through Python servers: ws_broadcast_server.py (raw ws://,
# one JSON text relayed), channels_server.py (Phoenix Channels V2 and ActionCable frames) and graphql_server.py
# (Strawberry on uvicorn, graphql-transport-ws). The servers are Python's asyncio, so their own speed shows in the
# delivery and spread; what this measures of the harness is its CPU time (the whole process's, setup and reports
# included) per message received, against the raw ws:// path's: what a description's handshake, scans and wrapping
# cost. Per protocol the median over the rounds, lost, and the ratio to ws://.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
venv="${XDG_CACHE_HOME:-$HOME/.cache}/bench-interop-venv/bin/python"
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 300); do /usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', $1))" 2>/dev/null && return; sleep 0.1; done; }
ws_port=$(free_port); phoenix_port=$(free_port); cable_port=$(free_port); graphql_port=$(free_port)
/usr/bin/python3 Tests/Fixtures/ws_broadcast_server.py "$ws_port" >/dev/null 2>&1 & pids+=($!)
/usr/bin/python3 Tests/Fixtures/channels_server.py "$phoenix_port" phoenix >/dev/null 2>&1 & pids+=($!)
/usr/bin/python3 Tests/Fixtures/channels_server.py "$cable_port" actioncable >/dev/null 2>&1 & pids+=($!)
"$venv" Tests/Fixtures/graphql_server.py "$graphql_port" >/dev/null 2>&1 & pids+=($!)
for port in "$ws_port" "$phoenix_port" "$cable_port" "$graphql_port"; do wait_port "$port"; done

declare -A arguments=(
    [ws]="--target ws://127.0.0.1:$ws_port/ --publish {\"type\":\"broadcast\",\"m\":\"{marker}{padding}\"}"
    [phoenix]="--target ws://127.0.0.1:$phoenix_port/socket/websocket?vsn=2.0.0 --protocol phoenix --channel room:lobby"
    [actioncable]="--target ws://127.0.0.1:$cable_port/cable --protocol actioncable --channel {\"channel\":\"ChatChannel\"}"
)
run() {  # prints: delivery p50, p99, spread p50, p99, lost, CPU µs per message received
    local name=$1; shift
    /usr/bin/time -f '%U %S' -o "$work/cpu" "$bench" fanout "$@" --clients 1000 --messages 50 --interval 200ms \
        --out "$work" --json >"$work/one.json"
    /usr/bin/python3 - "$work/one.json" "$work/cpu" <<'PY'
import json, sys
m = {x["metric"]: x for x in json.load(open(sys.argv[1]))["metrics"]}
user, system = map(float, open(sys.argv[2]).read().split())
d, s = m["delivery"], m["spread"]
print(d["p50_us"], d["p99_us"], s["p50_us"], s["p99_us"], d["lost"], (user + system) / max(d["count"], 1) * 1e6)
PY
}
for name in ws phoenix actioncable graphql; do : >"$work/$name"; done
for _ in $(seq "$rounds"); do
    for name in ws phoenix actioncable; do
        # shellcheck disable=SC2086  # the arguments are words, none with blanks
        run "$name" ${arguments[$name]} >>"$work/$name"
    done
    run graphql --target "ws://127.0.0.1:$graphql_port/graphql" --protocol graphql \
        --channel 'subscription { messages(room: "lobby") }' \
        --publish 'mutation { send(room: "lobby", text: "{marker}{padding}") }' >>"$work/graphql"
done
/usr/bin/python3 - "$work" <<'PY'
import statistics, sys
rows = {}
for name in ("ws", "phoenix", "actioncable", "graphql"):
    table = [list(map(float, line.split())) for line in open(f"{sys.argv[1]}/{name}")]
    rows[name] = ([statistics.median(column) for column in zip(*table)], [row[5] for row in table])
base = rows["ws"][0][5]
for name, (m, cpu) in rows.items():
    print(f"{name:<12} 1000 subscribers: delivery p50 {m[0]/1000:.1f} ms, p99 {m[1]/1000:.1f} ms; spread p50 "
          f"{m[2]/1000:.1f} ms, p99 {m[3]/1000:.1f} ms; lost {m[4]:.0f}; CPU {m[5]:.2f} µs per message received "
          f"({' '.join(f'{c:.2f}' for c in cpu)}; {m[5] / base:.2f}× ws://)")
PY
