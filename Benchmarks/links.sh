#!/usr/bin/env bash
# Clients behind emulated links (--link): the presets against the built-in server and against a real broker
# (mosquitto), 1,000 clients each, and what the emulator itself costs (delay=0 against no link).
#
#   Benchmarks/links.sh [rounds]       (default 1; needs mosquitto for the broker's rows: apt-get install mosquitto)
#
# Fan-out to 1,000 clients, 30 broadcasts every 500 ms, 64 B. Per link: delivery p50 and p99, spread p99, lost, and the
# harness's CPU time (the whole process's, the link's thread included, setup and reports too) per message received;
# the `delay=0` row against `none` is the emulator's own cost: a hop through user space each way, no model time.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
run() {  # prints: delivery p50, p99, spread p99, lost, CPU µs per message received
    local link=$1; shift
    local with=()
    [ "$link" = none ] || with=(--link "$link")
    /usr/bin/time -f '%U %S' -o "$work/cpu" "$bench" fanout "$@" "${with[@]}" --clients 1000 --messages 30 \
        --interval 500ms --out "$work" --json >"$work/one.json" 2>/dev/null || true
    /usr/bin/python3 - "$work/one.json" "$work/cpu" <<'PY'
import json, sys
m = {x["metric"]: x for x in json.load(open(sys.argv[1]))["metrics"]}
user, system = map(float, open(sys.argv[2]).read().split())
d, s = m["delivery"], m["spread"]
print(d["p50_us"] or 0, d["p99_us"] or 0, s["p99_us"] or 0, d["lost"], (user + system) / max(d["count"], 1) * 1e6)
PY
}
table() {  # the medians of each link's rounds, and CPU against the first row's
    /usr/bin/python3 - "$@" <<'PY'
import statistics, sys
rows = []
for path in sys.argv[1:]:
    values = [list(map(float, line.split())) for line in open(path) if line.strip()]
    rows.append((path.rsplit("/", 1)[1].replace("_", ","), [statistics.median(v) for v in zip(*values)]))
base = rows[0][1][4] or 1
print("| link | delivery p50 / p99 | spread p99 | lost | harness CPU per message | against none |")
print("|---|---|---|---|---|---|")
for name, (p50, p99, spread, lost, cpu) in rows:
    print(f"| `{name}` | {p50/1000:.2f} / {p99/1000:.2f} ms | {spread/1000:.2f} ms | {int(lost)} | {cpu:.1f} µs | {cpu/base:.2f}× |")
PY
}
links=(none delay=0 wifi lte 3g edge verybad)
echo "## The built-in server"
for link in "${links[@]}"; do : >"$work/${link//,/_}"; done
for _ in $(seq "$rounds"); do
    for link in "${links[@]}"; do run "$link" >>"$work/${link//,/_}"; done
done
table "${links[@]/#/$work/}"
if command -v mosquitto >/dev/null; then
    port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mosquitto -p "$port" >/dev/null 2>&1 & pids+=($!)
    sleep 1
    echo
    echo "## mosquitto (mqtt://, QoS 0)"
    broker=(none lte 3g)
    mkdir -p "$work/mqtt"
    for link in "${broker[@]}"; do : >"$work/mqtt/$link"; done
    for _ in $(seq "$rounds"); do
        for link in "${broker[@]}"; do
            run "$link" --target "mqtt://127.0.0.1:$port/news" >>"$work/mqtt/$link"
        done
    done
    table "${broker[@]/#/$work/mqtt/}"
fi
