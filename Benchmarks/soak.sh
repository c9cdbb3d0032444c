#!/usr/bin/env bash
# A soak run: `bench fanout --clients 1000 --interval 50ms --duration 5m` (or the duration given, e.g. 1h), with the
# process's resident memory read from /proc every 10 s. Targets: RSS flat after the first minute (growth < 5 MiB from
# minute 1 to the end), total < 150 MiB, the writer keeping up (writer_waits 0 in run.csv) and no send waiting for
# the ring (window_waits 0). Prints the RSS series, the verdict and the run's own timeline of delivery p50/p99.
#
#   Benchmarks/soak.sh [duration] [clients]      e.g. Benchmarks/soak.sh 1h
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-5m}
clients=${2:-1000}
swift build -c release --product bench >/dev/null
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
.build/release/bench fanout --clients "$clients" --interval 50ms --duration "$duration" --quiet --out "$work/runs" \
    >"$work/folder.txt" 2>"$work/stderr.txt" &
pid=$!
start=$(date +%s)
: >"$work/rss.txt"
while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    [[ -n $rss ]] && echo "$(( $(date +%s) - start )) $rss" >>"$work/rss.txt"
    sleep 10
done
wait "$pid" || { echo "bench failed:"; cat "$work/stderr.txt"; exit 1; }
folder=$(cat "$work/folder.txt")
python3 - "$work/rss.txt" "$folder" <<'PY'
import csv, sys
samples = [tuple(map(int, line.split())) for line in open(sys.argv[1]) if line.strip()]
folder = sys.argv[2]
run = {row[0]: row[1] for row in csv.reader(open(f"{folder}/run.csv"))}
print("RSS every 10 s (MiB):", " ".join(f"{kib / 1024:.1f}" for _, kib in samples))
after_first_minute = [kib for t, kib in samples if t >= 60]
growth = (max(after_first_minute) - after_first_minute[0]) / 1024 if after_first_minute else float("nan")
peak = max(kib for _, kib in samples) / 1024
summary = {row["metric"]: row for row in csv.DictReader(open(f"{folder}/summary.csv")) if not row.get("link")}
d = summary["delivery"]
print(f"duration {run['duration_s']} s, {run['clients']} clients: delivery {d['count']} measured, {d['lost']} lost, "
      f"p50 {float(d['p50_us']):.0f} µs, p99 {float(d['p99_us']):.0f} µs ({d['precision']}); "
      f"spread p99 {float(summary['spread']['p99_us']):.0f} µs")
print(f"ring {run['window_sequences']} broadcasts; window_waits {run['window_waits']}, writer_waits {run['writer_waits']}")
timeline = [row for row in csv.DictReader(open(f"{folder}/timeline.csv")) if row["metric"] == "delivery"]
step = max(1, len(timeline) // 12)
print("delivery per interval (p50/p99 µs):",
      " ".join(f"{float(r['p50_us']):.0f}/{float(r['p99_us']):.0f}" for r in timeline[::step]))
ok = growth < 5 and peak < 150 and run["writer_waits"] == "0" and run["window_waits"] == "0"
print(f"RSS growth after minute 1: {growth:.1f} MiB (target < 5), peak {peak:.1f} MiB (target < 150): "
      f"{'met' if ok else 'MISSED'}")
sys.exit(0 if ok else 1)
PY
