#!/usr/bin/env bash
# bench against servers it did not write (needs: apt-get install redis-server nats-server mosquitto time).
#
#   Benchmarks/targets.sh [rounds]       (default 5)
#
# 1. Ping-pong through a target: 1 client, 20000 round trips (--interval 0), 64 B, against a C echo server (blocking
#    read/write, Benchmarks/echo_server.c), alternating with the built-in ping-pong (--timestamps user, the way a target
#    run stamps); rtt p50 medians and their ratio (target ≤ 1.10).
# 2. Redis, NATS and MQTT (mosquitto, QoS 0 and 1) fan-out to 1,000 subscribers, 100 broadcasts every 20 ms: delivery
#    and spread p50/p99, and the harness's CPU time (the whole process's, setup and reports included) per message
#    received.
# 3. 5,000 Redis subscribers, 50 broadcasts every 200 ms: whether the subscribers' thread keeps up (CPU time of the
#    process per message received, and lost).
# 4. 19,000 Redis subscribers, 50 broadcasts every 100 ms (190,000 messages a second), on one subscriber thread, on
#    two, and in two client processes: whether the subscribers' reports keep up (lost, the measuring thread's load).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
gcc -O2 -o "$work/echo_server" Benchmarks/echo_server.c
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
echo_port=$(free_port); redis_port=$(free_port); nats_port=$(free_port); mqtt_port=$(free_port)
"$work/echo_server" "$echo_port" & pids=($!)
redis-server --port "$redis_port" --save '' --appendonly no --maxclients 19100 >/dev/null & pids+=($!)
nats-server -a 127.0.0.1 -p "$nats_port" >/dev/null 2>&1 & pids+=($!)
printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 10000\n' "$mqtt_port" >"$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >/dev/null 2>&1 & pids+=($!)
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
sleep 1

stats() { python3 -c '
import json, sys
metrics = {m["metric"]: m for m in json.load(sys.stdin)["metrics"]}
print(" ".join(str(metrics[a.split(".")[0]][a.split(".")[1] + "_us"]) for a in sys.argv[1:]))' "$@"; }
median() { python3 -c 'import sys, statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

builtin=(); target=()
for _ in $(seq "$rounds"); do
    builtin+=("$("$bench" roundtrip --count 20000 --interval 0 --timestamps user --out "$work" --json | stats rtt.p50)")
    target+=("$("$bench" roundtrip --count 20000 --interval 0 --timestamps user --target "tcp://127.0.0.1:$echo_port" --out "$work" --json |
        stats rtt.p50)")
done
b=$(median "${builtin[@]}"); t=$(median "${target[@]}")
printf 'ping-pong rtt p50: built-in %s µs (%s), C echo server through --target %s µs (%s): %.3f× (target ≤ 1.10)\n' \
    "$b" "${builtin[*]}" "$t" "${target[*]}" "$(python3 -c "print($t / $b)")"

for target in "redis://127.0.0.1:$redis_port/bench" "nats://127.0.0.1:$nats_port/bench" \
    "mqtt://127.0.0.1:$mqtt_port/bench --qos 0" "mqtt://127.0.0.1:$mqtt_port/bench --qos 1"; do
    # shellcheck disable=SC2086
    /usr/bin/time -f '%U %S' -o "$work/cpu" "$bench" fanout --target $target --clients 1000 --messages 100 \
        --interval 20ms --out "$work" --json >"$work/one.json"
    python3 - "$work/one.json" "$work/cpu" "$target" <<'PY'
import json, sys
m = {x["metric"]: x for x in json.load(open(sys.argv[1]))["metrics"]}
user, system = map(float, open(sys.argv[2]).read().split())
d, s = m["delivery"], m["spread"]
print(f"{sys.argv[3]:<45} 1000 subscribers: delivery p50 {d['p50_us']} µs, p99 {d['p99_us']} µs; spread p50 "
      f"{s['p50_us']} µs, p99 {s['p99_us']} µs; lost {d['lost']}; CPU {(user + system) / max(d['count'], 1) * 1e6:.1f} µs "
      f"per message received")
PY
done

/usr/bin/time -f '%U %S' -o "$work/cpu" "$bench" fanout --target "redis://127.0.0.1:$redis_port/bench" --clients 5000 \
    --messages 50 --interval 200ms --warmup 2 --out "$work" --json >"$work/big.json"
python3 - "$work/big.json" "$work/cpu" <<'PY'
import json, sys
m = {x["metric"]: x for x in json.load(open(sys.argv[1]))["metrics"]}
user, system = map(float, open(sys.argv[2]).read().split())
received = m["delivery"]["count"]
print(f"redis    5000 subscribers: {received} received, {m['delivery']['lost']} lost; delivery p50 "
      f"{m['delivery']['p50_us']} µs, p99 {m['delivery']['p99_us']} µs; spread p99 {m['spread']['p99_us']} µs; "
      f"process CPU {user + system:.2f} s = {(user + system) / max(received, 1) * 1e6:.1f} µs per message received "
      f"(setup and reports included)")
PY

for placement in "--client-threads 1" "--client-threads 2" "--client-procs 2"; do
    # shellcheck disable=SC2086
    "$bench" fanout --target "redis://127.0.0.1:$redis_port/bench" --clients 19000 --messages 50 --interval 100ms \
        --warmup 2 $placement --out "$work" --json | python3 -c '
import csv, json, sys
j = json.load(sys.stdin); m = {x["metric"]: x for x in j["metrics"]}
run = {row["key"]: row["value"] for row in csv.DictReader(open(j["run_folder"] + "/run.csv"))}
d = m["delivery"]
print(f"redis   19000 subscribers, {sys.argv[1]}: {d[\"count\"]} received, {d[\"lost\"]} lost; delivery p50 "
      f"{d[\"p50_us\"]} µs, p99 {d[\"p99_us\"]} µs; spread p99 {m[\"spread\"][\"p99_us\"]} µs; lag p99 "
      f"{m[\"lag\"][\"p99_us\"]} µs; measuring thread busy {run.get(\"harness_cpu_busiest_pct\")}%, saturated "
      f"{run.get(\"harness_saturated\")}")' "$placement"
done
