#!/usr/bin/env bash
# `bench chat` through the built-in relay, nats-server, mosquitto and (at 2,000) redis-server: 2,000 members in 200 rooms of 10 at 1 message a
# second each (18,000 deliveries a second), then 10,000 members in 1,000 rooms (90,000 a second, more than a 2-vCPU
# machine holds with the server and the harness on it), then rooms of zipf sizes (needs: apt-get install nats-server
# mosquitto redis-server time).
#
#   Benchmarks/chat.sh [seconds]        (default 30; BENCH=path/to/bench to use a build you already have)
#
# For each run: its status, deliveries and lost, delivery and spread p50/p99, the harness's busiest thread and whether
# it was saturated (run.csv), the built-in relay's CPU share, the peak RSS of the bench process (the relay and the
# measuring thread; the members run in child processes when one process has too few descriptors for both ends) and of
# the server process. mosquitto is run twice: as Debian configures it (Nagle's algorithm on its sockets) and with
# set_tcp_nodelay true, since a chat server writes many small messages to one member in a row.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
if [ -z "${BENCH:-}" ]; then
    swift build -c release --product bench >/dev/null
    BENCH=.build/release/bench
fi
work=$(mktemp -d)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
nats_port=$(free_port); mqtt_port=$(free_port); mqtt_nodelay_port=$(free_port); redis_port=$(free_port)
nats-server -a 127.0.0.1 -p "$nats_port" >/dev/null 2>&1 & nats=$!
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --maxclients 12000 >/dev/null & redis=$!
printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 10000\n' "$mqtt_port" >"$work/mosquitto.conf"
printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 10000\nset_tcp_nodelay true\n' \
    "$mqtt_nodelay_port" >"$work/mosquitto-nodelay.conf"
mosquitto -c "$work/mosquitto.conf" >/dev/null 2>&1 & mosquitto=$!
mosquitto -c "$work/mosquitto-nodelay.conf" >/dev/null 2>&1 & mosquitto_nodelay=$!
trap 'kill $nats $redis $mosquitto $mosquitto_nodelay 2>/dev/null; rm -rf "$work"' EXIT
sleep 1

report() {  # name, server pid (or -), run's JSON, GNU time's output
    python3 - "$@" <<'PY'
import csv, json, sys
name, pid, path, timing = sys.argv[1:5]
run = json.load(open(path))
m = {x["metric"]: x for x in run["metrics"]}
settings = dict(csv.reader(open(run["run_folder"] + "/run.csv")))
rss = int(open(timing).read().split()[0]) // 1024
server = ""
if pid != "-":
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"): server = f", server peak RSS {int(line.split()[1]) // 1024} MiB"
relay = f", relay CPU {settings['relay_cpu_pct']}%" if settings.get("relay_cpu_pct") else ""
d, s = m["delivery"], m["spread"]
print(f"{name:<26} {run['status']}: {d['count']} deliveries, {d['lost']} lost; delivery p50 {d['p50_us']:.0f} µs, "
      f"p99 {d['p99_us']:.0f} µs; spread p50 {s['p50_us']:.0f} µs, p99 {s['p99_us']:.0f} µs; harness busiest "
      f"{settings['harness_cpu_busiest_pct']}% (saturated: {settings['harness_saturated']}){relay}; bench peak RSS "
      f"{rss} MiB{server}; window waits {settings['window_waits']}")
if settings["harness_saturation"]: print(f"{'':<26} harness: {settings['harness_saturation']}")
PY
}

run() {  # name, server pid (or -), bench chat options…
    local name=$1 pid=$2; shift 2
    /usr/bin/time -f '%M' -o "$work/time" "$BENCH" chat "$@" --duration "${seconds}s" --warmup 2 --seed 1 \
        --out "$work/runs" --json >"$work/run.json"
    report "$name" "$pid" "$work/run.json" "$work/time"
}

small=(--clients 2000 --rooms 200 --rate 1/s)
run "built-in relay, 2,000" - "${small[@]}"
run "nats-server, 2,000" "$nats" "${small[@]}" --target "nats://127.0.0.1:$nats_port/chat"
run "mosquitto nodelay, 2,000" "$mosquitto_nodelay" "${small[@]}" --target "mqtt://127.0.0.1:$mqtt_nodelay_port/chat"
run "redis-server, 2,000" "$redis" "${small[@]}" --target "redis://127.0.0.1:$redis_port/chat"
big=(--clients 10000 --rooms 1000 --rate 1/s)
run "built-in relay" - "${big[@]}"
run "nats-server" "$nats" "${big[@]}" --target "nats://127.0.0.1:$nats_port/chat"
run "mosquitto (Debian's)" "$mosquitto" "${big[@]}" --target "mqtt://127.0.0.1:$mqtt_port/chat"
run "mosquitto, tcp_nodelay" "$mosquitto_nodelay" "${big[@]}" --target "mqtt://127.0.0.1:$mqtt_nodelay_port/chat"
run "built-in, zipf:0.8 rooms" - --clients 2000 --rooms 200 --room-sizes zipf:0.8 --rate 1/s
python3 -c 'import csv, glob, sys
folder = sorted(glob.glob(sys.argv[1] + "/runs/chat-*"))[-1]
for row in csv.reader(open(folder + "/rooms.csv")): print("    " + ", ".join(row))' "$work"
