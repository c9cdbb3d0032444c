#!/usr/bin/env bash
# Peak memory of reading a large saved run back: a 1,000,000-message fanout (1,000 clients × 1,000 broadcasts),
# then `bench check`, `bench report` and `bench compare` on its folder, each under /usr/bin/time (apt-get install
# time). Target: each needs at most as much memory as the run itself (they stream samples.csv row by row).
#
#   Benchmarks/saved-run-memory.sh [clients] [broadcasts]
set -euo pipefail
cd "$(dirname "$0")/.."
clients=${1:-1000}
broadcasts=${2:-1000}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rss() { /usr/bin/time -f "%M" -o "$work/rss" "$@" >/dev/null 2>&1 || true; cat "$work/rss"; }
run_rss=$(/usr/bin/time -f "%M" -o "$work/rss" $bench fanout --clients "$clients" --messages "$broadcasts" \
    --warmup 0 --interval 20ms --out "$work" --quiet >"$work/folder" && cat "$work/rss")
folder=$(cat "$work/folder")
check_rss=$(rss $bench check "$folder" --threshold 'spread.p99<10s')
report_rss=$(rss $bench report "$folder")
compare_rss=$(rss $bench compare "$folder" "$folder")
python3 - "$clients" "$broadcasts" "$run_rss" "$check_rss" "$report_rss" "$compare_rss" <<'PY'
import sys
clients, broadcasts, run, check, report, compare = map(int, sys.argv[1:])
worst = max(check, report, compare)
print(f"{clients * broadcasts} messages: run {run / 1024:.1f} MiB; check {check / 1024:.1f}, report {report / 1024:.1f},"
      f" compare {compare / 1024:.1f} MiB peak RSS (target: each <= the run's: {'met' if worst <= run else 'MISSED'})")
sys.exit(0 if worst <= run else 1)
PY
