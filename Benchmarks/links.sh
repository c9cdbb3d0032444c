#!/usr/bin/env bash
# Clients behind emulated links (--link): the presets against the built-in server and against a real broker
# (mosquitto), what the emulator itself costs (delay=0 against no link), at 1,000 clients and at 10,000 (the phones'
# mix among them).
#
#   Benchmarks/links.sh [rounds] [sizes]   (default 1 round; sizes: small (1,000 clients), big (10,000) or both, the
#                                           default; needs mosquitto for the broker's rows: apt-get install mosquitto)
#
# 1,000 clients: 30 broadcasts every 500 ms, 64 B. 10,000 clients: 20 broadcasts every 1 s. Per link: delivery p50 and
# p99, spread p99, lost, the harness's CPU time (every process's, children included, setup and
# reports too) per message received, and the link's own lateness (run.csv's link_lateness_*: how far behind the
# model's times the client threads let bytes out, p50 and p99); the `delay=0` row against `none` is the emulator's own cost.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}
sizes=${2:-both}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
run() {  # prints: delivery p50, p99, spread p99, lost, CPU µs per message received, lateness p50, p99 (ns; -1: none)
    local link=$1 clients=$2 messages=$3 interval=$4; shift 4
    local with=()
    [ "$link" = none ] || with=(--link "$link")
    rm -rf "$work/out"
    /usr/bin/time -f '%U %S' -o "$work/cpu" "$bench" fanout "$@" "${with[@]}" --clients "$clients" \
        --messages "$messages" --interval "$interval" --out "$work/out" --json >"$work/one.json" 2>/dev/null || true
    /usr/bin/python3 - "$work/one.json" "$work/cpu" "$work/out" <<'PY'
import csv, glob, json, sys
m = {x["metric"]: x for x in json.load(open(sys.argv[1]))["metrics"]}
user, system = map(float, open(sys.argv[2]).read().split())
settings = {}
for path in glob.glob(sys.argv[3] + "/*/run.csv"):
    settings = {row["key"]: row["value"] for row in csv.DictReader(open(path))}
late = [float(settings.get(f"link_lateness_{p}_ns") or -1) for p in ("p50", "p99")]
d, s = m["delivery"], m["spread"]
print(d["p50_us"] or 0, d["p99_us"] or 0, s["p99_us"] or 0, d["lost"], (user + system) / max(d["count"], 1) * 1e6, *late)
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
ms = lambda ns: "–" if ns < 0 else f"{ns/1e6:.2f}"
print("| link | delivery p50 / p99 | spread p99 | lost | harness CPU per message | against none | link's lateness p50 / p99 |")
print("|---|---|---|---|---|---|---|")
for name, (p50, p99, spread, lost, cpu, late50, late99) in rows:
    lateness = "–" if late50 < 0 else f"{ms(late50)} / {ms(late99)} ms"
    spread = "– (none complete)" if spread == 0 else f"{spread/1000:.2f} ms"
    print(f"| `{name}` | {p50/1000:.2f} / {p99/1000:.2f} ms | {spread} | {int(lost)} | {cpu:.1f} µs | {cpu/base:.2f}× | {lateness} |")
PY
}
section() {  # title, folder, clients, messages, interval, then the links; each link's rounds, then the table
    local title=$1 folder=$2 clients=$3 messages=$4 interval=$5; shift 5
    local links=() extra=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do links+=("$1"); shift; done
    [ $# -gt 0 ] && { shift; extra=("$@"); }
    mkdir -p "$work/$folder"
    for link in "${links[@]}"; do : >"$work/$folder/${link//,/_}"; done
    for _ in $(seq "$rounds"); do
        for link in "${links[@]}"; do
            run "$link" "$clients" "$messages" "$interval" "${extra[@]}" >>"$work/$folder/${link//,/_}"
        done
    done
    echo
    echo "## $title"
    local paths=()
    for link in "${links[@]}"; do paths+=("$work/$folder/${link//,/_}"); done
    table "${paths[@]}"
}
mix='lte:70%,3g:20%,verybad:10%'
small() { [ "$sizes" != big ]; }
big() { [ "$sizes" != small ]; }
if small; then section "The built-in server, 1,000 clients" small 1000 30 500ms none delay=0 wifi lte 3g edge verybad; fi
if big; then section "The built-in server, 10,000 clients" big 10000 20 1s none delay=0 "$mix"; fi
if command -v mosquitto >/dev/null; then
    port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_connections -1\n' "$port" >"$work/mosquitto.conf"
    mosquitto -c "$work/mosquitto.conf" >/dev/null 2>&1 & pids+=($!)
    sleep 1
    target=(--target "mqtt://127.0.0.1:$port/news")
    if small; then section "mosquitto (mqtt://, QoS 0), 1,000 subscribers" mqtt 1000 30 500ms none lte 3g -- "${target[@]}"; fi
    if big; then
        # MQTT's keepalive (5 s by default) closes a verybad phone whose PINGREQ waits out three lost retransmissions,
        # as a broker would: a phone's 30 s, and its return.
        section "mosquitto (mqtt://, QoS 0), 10,000 subscribers" mqttbig 10000 20 1s none "$mix" -- "${target[@]}" \
            --heartbeat 30s --reconnect
    fi
fi
