#!/usr/bin/env bash
# What being watched costs a run (--metrics-listen): the same fanout alternately with the live view scraped every
# second (/metrics and /live.json, as Prometheus and the page would) and without it; medians of each side's delivery
# p50/p99 and spread p99, and their ratios (watched / not watched: within the noise means nothing measurable).
#
#   Benchmarks/live-view-overhead.sh [rounds]     (default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
trap 'rm -rf "$work"; kill $(jobs -p) 2>/dev/null || true' EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
run=(fanout --clients 100 --messages 600 --interval 10ms --seed 7 --json --out "$work")
stats() { python3 -c '
import json, sys
m = {x["metric"]: x for x in json.load(sys.stdin)["metrics"]}
print(m["delivery"]["p50_us"], m["delivery"]["p99_us"], m["spread"]["p99_us"])'; }
: >"$work/plain"; : >"$work/watched"
for _ in $(seq "$rounds"); do
    "$bench" "${run[@]}" | stats >>"$work/plain"
    port=$(free_port)
    ( while sleep 1; do
          curl -s "http://127.0.0.1:$port/metrics" >/dev/null || true
          curl -s "http://127.0.0.1:$port/live.json" >/dev/null || true
      done ) &
    scraper=$!
    "$bench" "${run[@]}" --metrics-listen "127.0.0.1:$port" 2>/dev/null | stats >>"$work/watched"
    kill "$scraper" 2>/dev/null || true
done
python3 - "$work/plain" "$work/watched" <<'PY'
import statistics, sys
plain = [list(map(float, l.split())) for l in open(sys.argv[1])]
watched = [list(map(float, l.split())) for l in open(sys.argv[2])]
for i, name in enumerate(["delivery p50", "delivery p99", "spread p99"]):
    a = statistics.median(r[i] for r in plain); b = statistics.median(r[i] for r in watched)
    lo, hi = min(r[i] for r in plain), max(r[i] for r in plain)
    print(f"{name:<13} not watched {a:9.1f} µs (range {lo:.1f}–{hi:.1f}), watched {b:9.1f} µs: {b / a:.3f}×")
PY
