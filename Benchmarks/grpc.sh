#!/usr/bin/env bash
# gRPC server streams against a WebSocket relay, both Python servers of the test suite on one event loop each (needs:
# apt-get install python3-grpcio python3-websockets time).
#
#   Benchmarks/grpc.sh [rounds] [subscribers]       (defaults 3 and 1000)
#
# Fan-out to the subscribers, 100 broadcasts every 20 ms: through Tests/Fixtures/grpc_relay_server.py
# (grpc://…/bench.Relay/Subscribe, each broadcast a unary Publish call) with one connection each and with 100 subscribers
# per connection (--streams-per-connection 100), and through Tests/Fixtures/ws_broadcast_server.py (ws://, each broadcast
# a JSON message the relay sends on), one connection each. Delivery and spread p50/p99, lost, and the harness's CPU
# time (the whole process's, setup and reports included) per message received; the median over the rounds, the rounds
# alternating, and the ratios of gRPC's CPU to WebSocket's (what HTTP/2, HPACK and gRPC's framing cost the harness).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
subscribers=${2:-1000}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
grpc_port=$(free_port); ws_port=$(free_port)
/usr/bin/python3 Tests/Fixtures/grpc_relay_server.py "$grpc_port" >/dev/null 2>&1 & pids=($!)
/usr/bin/python3 Tests/Fixtures/ws_broadcast_server.py "$ws_port" >/dev/null 2>&1 & pids+=($!)
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
for port in "$grpc_port" "$ws_port"; do
    for _ in $(seq 100); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break
        sleep 0.1
    done
done

source Benchmarks/measure-fanout.sh

grpc=(grpc://127.0.0.1:$grpc_port/bench.Relay/Subscribe --subscribe '1: "bench"' --publish-method bench.Relay/Publish
    --publish '1: "bench" 2: "{marker}{padding}"')
ws=(ws://127.0.0.1:$ws_port/ --publish '{"type":"broadcast","payload":"{marker}{padding}"}')
: >"$work/grpc"; : >"$work/shared"; : >"$work/ws"
for _ in $(seq "$rounds"); do
    measure_fanout "${grpc[@]}" >>"$work/grpc"
    measure_fanout "${grpc[@]}" --streams-per-connection 100 >>"$work/shared"
    measure_fanout "${ws[@]}" >>"$work/ws"
done
python3 - "$work/grpc" "$work/shared" "$work/ws" "$subscribers" <<'PY'
import statistics, sys
def medians(path):
    rows = [list(map(float, line.split())) for line in open(path)]
    return [statistics.median(column) for column in zip(*rows)], [row[5] for row in rows]
(grpc, grpc_cpu), (shared, shared_cpu), (ws, ws_cpu) = medians(sys.argv[1]), medians(sys.argv[2]), medians(sys.argv[3])
for name, m, cpu in (("grpc:// (a connection each)", grpc, grpc_cpu), ("grpc:// (100 per connection)", shared, shared_cpu),
                     ("ws:// (a connection each)", ws, ws_cpu)):
    print(f"{name:<30} {sys.argv[4]} subscribers: delivery p50 {m[0]:.0f} µs, p99 {m[1]:.0f} µs; spread p50 {m[2]:.0f} µs, "
          f"p99 {m[3]:.0f} µs; lost {m[4]:.0f}; CPU {m[5]:.2f} µs per message received "
          f"({' '.join(f'{c:.2f}' for c in cpu)})")
print(f"  CPU per message received, against ws://: gRPC {grpc[5] / ws[5]:.3f}, gRPC 100 per connection {shared[5] / ws[5]:.3f}")
PY
