#!/usr/bin/env bash
# The per-message path allocates nothing: the server's and the clients' threads call malloc as often for a run
# of 100 times more messages (setup only). Counted with an LD_PRELOAD shim (malloc_count.c); the main thread's
# count grows with the run (analysis and reports happen there, after the run) and is not checked.
#
#   Benchmarks/hot-path-allocations.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -shared -fPIC -o "$work/malloc_count.so" Benchmarks/malloc_count.c -ldl

counts() {  # bench arguments -> "server clients"
    LD_PRELOAD="$work/malloc_count.so" .build/release/bench "$@" --quiet --out "$work/runs" 2>&1 >/dev/null |
        sed -n 's/^mallocs server=\([0-9]*\) clients=\([0-9]*\).*/\1 \2/p'
}

status=0
while IFS='|' read -r name small large; do
    read -r server_small clients_small < <(counts $small)
    read -r server_large clients_large < <(counts $large)
    verdict=met
    if [ "$server_small" != "$server_large" ] || [ "$clients_small" != "$clients_large" ]; then verdict=MISSED; status=1; fi
    printf '%-22s server %4s → %4s   clients %4s → %4s   (100× the messages; target: equal: %s)\n' "$name" \
        "$server_small" "$server_large" "$clients_small" "$clients_large" "$verdict"
done <<'RUNS'
ping-pong|roundtrip --count 1000 --interval 0|roundtrip --count 100000 --interval 0
roundtrip, 4 clients|roundtrip --clients 4 --count 500 --interval 100us|roundtrip --clients 4 --count 50000 --interval 100us
fanout, 20 clients|fanout --clients 20 --messages 50 --interval 1ms|fanout --clients 20 --messages 5000 --interval 1ms
ping-pong, kernel|roundtrip --count 1000 --interval 0 --timestamps both|roundtrip --count 100000 --interval 0 --timestamps both
fanout, kernel, 2 thr.|fanout --clients 20 --messages 50 --interval 1ms --timestamps both --client-threads 2|fanout --clients 20 --messages 5000 --interval 1ms --timestamps both --client-threads 2
fanout, 3 server thr.|fanout --clients 20 --messages 50 --interval 1ms --server-threads 3|fanout --clients 20 --messages 5000 --interval 1ms --server-threads 3
RUNS
exit $status
