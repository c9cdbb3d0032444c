#!/usr/bin/env bash
# A user's server measured from every placement of its clients (needs: apt-get install nats-server redis-server).
#
#   Benchmarks/target-placements.sh
#
# 1. Roundtrip through nats-server (each client publishes to SUBJECT.<client>, subscribed to it): 2,000 clients, 50
#    messages each every 100 ms, with the clients on one thread, on two, in two child processes, and in two agents of
#    `bench serve roundtrip --target`: rtt p50/p99, lag p99, lost, and the measuring thread's CPU per message (the cost
#    of ordering each send and taking its reports, wherever the clients are).
# 2. The agents' measurement stream: `bench serve fanout --target redis://…` with 19,000 subscribers in two agents, 10
#    broadcasts a second (190,000 reports a second to the collector; 19,000: what one redis-server holds under a limit of
#    20,000 descriptors): lost, delivery and spread, lag, and the measuring
#    thread's busy share and CPU per message received; beside the same run with the subscribers on two threads here.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
ulimit -n "$(ulimit -Hn)"  # before redis-server starts: its maxclients is bounded by its descriptors
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
nats_port=$(free_port); redis_port=$(free_port)
nats-server -a 127.0.0.1 -p "$nats_port" >/dev/null 2>&1 & pids=($!)
redis-server --port "$redis_port" --save '' --appendonly no --maxclients 21000 >/dev/null & pids+=($!)
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
sleep 1

report() {  # run folder, label, messages -> one line
    python3 - "$1" "$2" <<'PY'
import csv, sys
folder, label = sys.argv[1], sys.argv[2]
summary = {row["metric"]: row for row in csv.DictReader(open(folder + "/summary.csv")) if not row.get("link")}
run = {row["key"]: row["value"] for row in csv.DictReader(open(folder + "/run.csv"))}
main = summary.get("rtt") or summary["delivery"]
count = int(main["count"]) + int(main["lost"])
seconds = float(run["duration_s"])
measuring = float(run.get("harness_cpu_measuring_pct") or 0) / 100 * seconds
line = (f"{label:<34} {main['metric']} p50 {float(main['p50_us']):9.1f} µs, p99 {float(main['p99_us']):9.1f} µs; "
        f"lost {main['lost']}; lag p99 {float(summary['lag']['p99_us']):9.1f} µs; measuring thread "
        f"{run.get('harness_cpu_measuring_pct')}% busy, {measuring / max(count, 1) * 1e6:.2f} µs per message")
if "spread" in summary:
    line += f"; spread p50 {float(summary['spread']['p50_us']):.0f} µs, p99 {float(summary['spread']['p99_us']):.0f} µs"
print(line)
PY
}

serve_with_agents() {  # agents, clients per agent, serve arguments… -> run folder
    local agents=$1 each=$2; shift 2
    "$bench" serve "$@" --listen 127.0.0.1:0 --token T --quiet --out "$work" >"$work/serve.out" 2>"$work/serve.err" &
    local serve=$!
    until grep -q "listening on" "$work/serve.err" 2>/dev/null; do sleep 0.05; done
    local port; port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/serve.err")
    for _ in $(seq "$agents"); do
        "$bench" clients --connect "127.0.0.1:$port" --clients "$each" --token T >/dev/null 2>&1 &
    done
    wait "$serve"
    wait
    cat "$work/serve.out"
}

target="nats://127.0.0.1:$nats_port/rt"
common=(--clients 2000 --count 50 --interval 100ms --warmup 2)
for placement in "--client-threads 1" "--client-threads 2" "--client-procs 2"; do
    # shellcheck disable=SC2086
    folder=$("$bench" roundtrip --target "$target" "${common[@]}" $placement --quiet --out "$work")
    report "$folder" "nats roundtrip, $placement"
done
folder=$(serve_with_agents 2 1000 roundtrip --target "$target" "${common[@]}")
report "$folder" "nats roundtrip, serve + 2 agents"

target="redis://127.0.0.1:$redis_port/stream"
common=(--clients 19000 --messages 30 --interval 100ms --warmup 2)
folder=$("$bench" fanout --target "$target" "${common[@]}" --client-threads 2 --quiet --out "$work")
report "$folder" "redis 19,000 subscribers, 2 threads"
folder=$(serve_with_agents 2 9500 fanout --target "$target" "${common[@]}")
report "$folder" "redis 19,000 subscribers, 2 agents"
