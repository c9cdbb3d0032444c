#!/usr/bin/env bash
# Issue 46's agents' merge at the largest rate this machine sustains: `bench serve fanout --target redis://…` with
# 19,000 subscribers in two `bench clients` agents (every delivery is a report an agent sends the one collector), 30
# broadcasts at each interval given (19,000 reports a broadcast), faster until the run says the harness or the server
# did not keep up: reports a second (scheduled, and over the run's sending time), lost, delivery and spread, lag p99,
# the measuring thread's busy share and CPU per report, and the run's verdict. Needs redis-server (apt-get install
# redis-server).
#
#   Benchmarks/agents-merge-rate.sh [intervals…]      (default: 100ms 50ms 25ms 12ms)
set -euo pipefail
cd "$(dirname "$0")/.."
intervals=("$@")
[ ${#intervals[@]} -gt 0 ] || intervals=(100ms 50ms 25ms 12ms)
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
ulimit -n "$(ulimit -Hn)"  # before redis-server starts: its maxclients is bounded by its descriptors
redis_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$redis_port" --save '' --appendonly no --maxclients 21000 >/dev/null & redis=$!
trap 'kill "$redis" 2>/dev/null; rm -rf "$work"' EXIT
sleep 1
for interval in "${intervals[@]}"; do
    "$bench" serve fanout --target "redis://127.0.0.1:$redis_port/stream" --clients 19000 --messages 30 --warmup 2 \
        --interval "$interval" --listen 127.0.0.1:0 --token T --quiet --out "$work" >"$work/serve.out" 2>"$work/serve.err" &
    serve=$!
    until grep -q "listening on" "$work/serve.err" 2>/dev/null; do sleep 0.05; done
    port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/serve.err")
    agents=()
    for _ in 1 2; do "$bench" clients --connect "127.0.0.1:$port" --clients 9500 --token T >/dev/null 2>&1 & agents+=($!); done
    status=0; wait "$serve" || status=$?
    [ -s "$work/serve.out" ] || { echo "every $interval: exit $status, no run folder: $(tail -1 "$work/serve.err")"; continue; }
    wait "${agents[@]}" || true
    /usr/bin/python3 - "$(tail -1 "$work/serve.out")" "$interval" "$status" "$(grep -i 'saturated\|behind\|kept up' "$work/serve.err" | head -1)" <<'PY'
import csv, sys
folder, interval, status, verdict = sys.argv[1:5]
summary = {row["metric"]: row for row in csv.DictReader(open(folder + "/summary.csv")) if not row.get("link")}
run = {row["key"]: row["value"] for row in csv.DictReader(open(folder + "/run.csv"))}
delivery = summary["delivery"]
reports = int(delivery["count"]) + int(delivery["lost"])
seconds = float(run["duration_s"])
busy = float(run.get("harness_cpu_measuring_pct") or 0)
print(f"every {interval:>5}: exit {status}, {reports / max(seconds, 1e-9):9.0f} reports/s over {seconds:.2f} s "
      f"(lost {delivery['lost']}); delivery p50 {float(delivery['p50_us']) / 1000:.1f} ms p99 "
      f"{float(delivery['p99_us']) / 1000:.1f} ms; spread p99 {float(summary['spread']['p99_us']) / 1000:.1f} ms; "
      f"lag p99 {float(summary['lag']['p99_us']) / 1000:.1f} ms; measuring thread {busy:.0f}% busy, "
      f"{busy / 100 * seconds / max(reports, 1) * 1e6:.2f} µs a report; saturated {run.get('harness_saturated', '?')}"
      + (f"; {verdict}" if verdict else ""), flush=True)
PY
done
