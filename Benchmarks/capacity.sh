#!/usr/bin/env bash
# The capacity of the built-in server and of redis-server on this machine, as `bench capacity` finds it, with the
# time each search took.
#
#   Benchmarks/capacity.sh [high]        (default high end: 20000 clients)
#
# 1. The built-in server, the seeds' objective: spread p99 under 200 ms and 99% of messages under 200 ms (--under's
#    default), 50 broadcasts every 100 ms per step.
# 2. redis-server (started here on port 16379 when installed): delivery p99 under 200 ms, the same steps.
# Each prints its capacity line; a search that ends harness-bound says so (the harness, not the server, was the limit).
set -euo pipefail
cd "$(dirname "$0")/.."
high=${1:-20000}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
out=$(mktemp -d)
trap 'rm -rf "$out"; redis-cli -p 16379 shutdown nosave >/dev/null 2>&1 || true' EXIT
ulimit -n "$(ulimit -Hn)"

search() {
    local started=$SECONDS
    "$bench" capacity fanout --clients "100..$high" --messages 50 --interval 100ms --out "$out" "$@" 2>"$out/steps.log"
    echo "  (search took $((SECONDS - started)) s; steps:)"
    sed 's/^/    /' "$out/steps.log"
}

echo "built-in server:"
search --slo 'spread.p99<200ms' --slo 'pct_under>=99%'
if command -v redis-server >/dev/null; then
    redis-server --port 16379 --save '' --appendonly no --daemonize yes >/dev/null
    echo "redis-server:"
    search --target redis://127.0.0.1:16379/capacity --slo 'delivery.p99<200ms'
else
    echo "redis-server: not installed (apt-get install -y redis-server); skipped"
fi
