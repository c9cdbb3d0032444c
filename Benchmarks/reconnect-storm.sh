#!/usr/bin/env bash
# A reconnect storm: `bench fanout --clients 5000 --interval 100ms --duration 30s --drop-connections-at 10s
# --reconnect` (clients and interval may be given). The server closes all 5,000 connections at once, 10 s in; every
# client comes back with exponential backoff and jitter (--reconnect-base 100ms: the first try 50–100 ms after the
# drop, the connects 128 at a time per client thread). Prints how many came back, the reconnect metric
# (close → hello accepted, on the server's clock), the time until the last one was back, the messages lost in the
# outage, and delivery before and after. Target: every client back (client_outages_back = clients), none gave up.
#
#   Benchmarks/reconnect-storm.sh [clients] [interval]      e.g. Benchmarks/reconnect-storm.sh 9000 200ms
set -euo pipefail
cd "$(dirname "$0")/.."
clients=${1:-5000}
interval=${2:-100ms}
swift build -c release --product bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.build/release/bench fanout --clients "$clients" --interval "$interval" --duration 30s --drop-connections-at 10s \
    --reconnect --quiet --out "$work/runs" >"$work/folder.txt" 2>"$work/stderr.txt" \
    || { echo "bench failed:"; cat "$work/stderr.txt"; exit 1; }
folder=$(cat "$work/folder.txt")
python3 - "$folder" <<'PY'
import csv, sys
folder = sys.argv[1]
run = {row[0]: row[1] for row in csv.reader(open(f"{folder}/run.csv"))}
summary = {row["metric"]: row for row in csv.DictReader(open(f"{folder}/summary.csv")) if not row.get("link")}
outages = list(csv.DictReader(open(f"{folder}/reconnects.csv")))
back = [int(row["reconnect_ns"]) for row in outages if row["reconnect_ns"]]
r = summary["reconnect"]
print(f"{run['clients']} clients, {run['status']}: {len(outages)} connections dropped at once, {len(back)} came back, "
      f"{run['clients_gave_up']} gave up")
if back:
    print(f"reconnect (close → hello accepted): p50 {float(r['p50_us']) / 1000:.1f} ms, p99 {float(r['p99_us']) / 1000:.1f} ms, "
          f"all back after {max(back) / 1e6:.1f} ms")
d = summary["delivery"]
print(f"delivery: {d['count']} measured, {d['lost']} lost (the outage's), p50 {float(d['p50_us']) / 1000:.2f} ms, "
      f"p99 {float(d['p99_us']) / 1000:.2f} ms; lag p99 {float(summary['lag']['p99_us']) / 1000:.1f} ms")
ok = len(back) == len(outages) == int(run["clients"]) and run["clients_gave_up"] == "0"
print("verdict:", "every client came back" if ok else "NOT every client came back")
sys.exit(0 if ok else 1)
PY
