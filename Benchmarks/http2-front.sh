#!/usr/bin/env bash
# WebSocket and Server-Sent Events behind an HTTP/2 front, over HTTP/1.1 and over HTTP/2 (`--http2`): Debian's nghttpx
# (one worker, cleartext: HTTP/1.1 and h2c on one port) before the test suite's Python servers (needs: apt-get install
# nghttp2-proxy python3-websockets time).
#
#   Benchmarks/http2-front.sh [rounds] [subscribers]       (defaults 3 and 1000)
#
# Fan-out to the subscribers, 100 broadcasts every 20 ms, each subscriber a connection of its own through the front:
# ws:// (Tests/Fixtures/ws_broadcast_server.py; over HTTP/2 by extended CONNECT, RFC 8441) and sse://
# (Tests/Fixtures/sse_server.py, chunked; over HTTP/2 a GET on a stream; the publisher POSTs to the front over
# HTTP/1.1 either way). Delivery and spread p50/p99, lost, and the harness's CPU time (the whole process's, setup and
# reports included) per message received; the median over the rounds, the rounds alternating, and the ratios of HTTP/2's
# CPU to HTTP/1.1's (what HTTP/2's framing costs the harness).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
subscribers=${2:-1000}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ws_port=$(free_port); ws_front=$(free_port); sse_front=$(free_port)
/usr/bin/python3 Tests/Fixtures/ws_broadcast_server.py "$ws_port" >/dev/null 2>&1 & pids=($!)
/usr/bin/python3 Tests/Fixtures/sse_server.py "$work/sse.port" chunked >/dev/null 2>&1 & pids+=($!)
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do [[ -s "$work/sse.port" ]] && break; sleep 0.1; done
sse_port=$(cat "$work/sse.port")
front() {  # port, backend port
    /usr/sbin/nghttpx --conf=/dev/null --single-process --workers=1 --no-ocsp --rlimit-nofile=65536 "--frontend=127.0.0.1,$1;no-tls" \
        "--backend=127.0.0.1,$2" >/dev/null 2>&1 &
    pids+=($!)
}
front "$ws_front" "$ws_port"
front "$sse_front" "$sse_port"
for port in "$ws_port" "$ws_front" "$sse_front"; do
    for _ in $(seq 100); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break
        sleep 0.1
    done
done

source Benchmarks/measure-fanout.sh

ws=(ws://127.0.0.1:$ws_front/ --publish '{"type":"broadcast","payload":"{marker}{padding}"}' --warmup 3)
sse=(sse://127.0.0.1:$sse_front/events --publish-url "http://127.0.0.1:$sse_front/publish")
for name in ws ws2 sse sse2; do : >"$work/$name"; done
for _ in $(seq "$rounds"); do
    measure_fanout "${ws[@]}" >>"$work/ws"
    measure_fanout "${ws[@]}" --http2 >>"$work/ws2"
    measure_fanout "${sse[@]}" >>"$work/sse"
    measure_fanout "${sse[@]}" --http2 >>"$work/sse2"
done
python3 - "$work" "$subscribers" <<'PY'
import statistics, sys
def medians(name):
    rows = [list(map(float, line.split())) for line in open(f"{sys.argv[1]}/{name}")]
    return [statistics.median(column) for column in zip(*rows)], [row[5] for row in rows]
results = {name: medians(name) for name in ("ws", "ws2", "sse", "sse2")}
labels = {"ws": "ws:// over HTTP/1.1", "ws2": "ws:// over HTTP/2", "sse": "sse:// over HTTP/1.1", "sse2": "sse:// over HTTP/2"}
for name, (m, cpu) in results.items():
    print(f"{labels[name]:<22} {sys.argv[2]} subscribers: delivery p50 {m[0]:.0f} µs, p99 {m[1]:.0f} µs; spread p50 "
          f"{m[2]:.0f} µs, p99 {m[3]:.0f} µs; lost {m[4]:.0f}; CPU {m[5]:.2f} µs per message received "
          f"({' '.join(f'{c:.2f}' for c in cpu)})")
print(f"  CPU per message received, HTTP/2 against HTTP/1.1: ws {results['ws2'][0][5] / results['ws'][0][5]:.3f}, "
      f"sse {results['sse2'][0][5] / results['sse'][0][5]:.3f}")
PY
