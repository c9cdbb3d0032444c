#!/usr/bin/env bash
# The same capacity search K times (default 5) while one CPU is kept busy by a spinning process, as a loaded CI machine
# would be: does it answer the same, and how long does it take? (Issue 42's command: the built-in server, 10 to 400
# clients, 30 broadcasts every 50 ms per run, spread p99 under 2 ms and 99% under 200 ms.) Prints each search's line
# (answer, 95% interval, steps, time) and whether it saturated or ended harness-bound.
#
#   bash Benchmarks/capacity-busy.sh [K]          BUSY=0 for a quiet machine, BUSY=2 for both CPUs;
#                                                 BUSY_FOR=20 keeps them busy through each search's first 20 s only
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
out=$(mktemp -d)
busy=()
start_busy() {
    for _ in $(seq 1 "${BUSY:-1}"); do
        if [ -n "${BUSY_FOR:-}" ]; then timeout "$BUSY_FOR" yes >/dev/null & else yes >/dev/null & fi
        busy+=($!)
    done
}
trap 'kill "${busy[@]}" 2>/dev/null || true; rm -rf "$out"' EXIT
[ -n "${BUSY_FOR:-}" ] || start_busy
for run in $(seq 1 "$runs"); do
    [ -z "${BUSY_FOR:-}" ] || start_busy
    started=$SECONDS
    line=$("$bench" capacity fanout --clients 10..400 --messages 30 --interval 50ms --slo 'spread.p99<2ms' \
        --slo 'pct_under>=99%' --out "$out" 2>"$out/steps-$run.log" | head -1) || true
    echo "search $run ($((SECONDS - started)) s): $line"
    grep -E "saturated|harness-bound|did not keep up|busy with other work|run again|^Note" "$out/steps-$run.log" \
        | sed 's/^/    /' | head -8 || true
done
