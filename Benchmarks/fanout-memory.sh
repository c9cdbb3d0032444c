#!/usr/bin/env bash
# Peak memory of a large fan-out in one process: `bench fanout --clients 5000 --messages 50 --interval 200ms`
# under /usr/bin/time -v (apt-get install time). Target: no loss, peak RSS under 100 MiB.
#
#   Benchmarks/fanout-memory.sh [clients]
set -euo pipefail
cd "$(dirname "$0")/.."
clients=${1:-5000}
swift build -c release --product bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/time -v .build/release/bench fanout --clients "$clients" --messages 50 --interval 200ms --out "$work" \
    --json >"$work/summary.json" 2>"$work/time.txt"
python3 - "$work/summary.json" "$work/time.txt" <<'PY'
import json, re, sys
summary = json.load(open(sys.argv[1]))
rss_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(sys.argv[2]).read()).group(1))
lost = sum(m["lost"] for m in summary["metrics"] if m["metric"] in ("delivery", "rtt"))
print(f"clients {summary['clients']}  status {summary['status']}  lost {lost}  peak RSS {rss_kib / 1024:.1f} MiB"
      f"  (target: 0 lost, < 100 MiB: {'met' if lost == 0 and rss_kib < 100 * 1024 else 'MISSED'})")
sys.exit(0 if lost == 0 and rss_kib < 100 * 1024 else 1)
PY
