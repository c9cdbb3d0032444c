#!/usr/bin/env bash
# CPU per message of `bench fanout` with each I/O engine, against the C epoll reference (../shared/ref/fanout_ref.c):
# the user + system time of the whole process tree (time(1)), divided by the deliveries (clients × broadcasts).
#
#   Benchmarks/cpu-per-message.sh [rounds] [clients ...]
#
# For each client count (default 1000) it alternates `rounds` runs (default 5) of `fanout_ref fanout N 200 10`,
# `bench fanout --clients N --messages 200 --warmup 0 --interval 10ms --arrival fixed --timestamps user --io epoll` and
# the same with `--io uring` (no warmup: bench sends the reference's 200 broadcasts, not 210), and prints the median
# CPU seconds of each and the ratios to the reference (the issue's goal for io_uring: at most 0.85 at 1,000 clients).
# Both run one server thread and one client thread (bench: --client-threads 1); above 9,000 clients both put the
# clients in a child process (fanout_ref -P; bench --client-procs 1), for the descriptor limit.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
shift || true
counts=("${@:-1000}")
swift build -c release --product bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp .build/release/bench "$work/bench"
gcc -O2 -Wall -pthread -o "$work/fanout_ref" ../shared/ref/fanout_ref.c

median() { python3 -c 'import sys, statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
cpu() {  # command... -> "user+sys" seconds of the process tree
    /usr/bin/time -f '%U %S' -o "$work/time" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    awk '{ print $1 + $2 }' "$work/time"
}

printf '%-8s %-12s %-12s %-12s %-16s %-16s %s\n' clients "ref s" "epoll s" "uring s" "epoll / ref" "uring / ref" "µs CPU per delivery (ref, epoll, uring)"
for clients in "${counts[@]}"; do
    placement=(--client-threads 1)
    procs=()
    if [ "$clients" -gt 9000 ]; then placement=(--client-procs 1); procs=(-P); fi
    ref=(); epoll=(); uring=()
    for _ in $(seq "$rounds"); do
        ref+=("$(cpu "$work/fanout_ref" "${procs[@]}" fanout "$clients" 200 10)")
        for io in epoll uring; do
            seconds=$(cpu "$work/bench" fanout --clients "$clients" --messages 200 --warmup 0 --interval 10ms \
                --arrival fixed --timestamps user --io "$io" "${placement[@]}" --out "$work/runs" --quiet)
            if [ "$io" = epoll ]; then epoll+=("$seconds"); else uring+=("$seconds"); fi
        done
    done
    r=$(median "${ref[@]}"); e=$(median "${epoll[@]}"); u=$(median "${uring[@]}")
    python3 -c "
r, e, u, n = $r, $e, $u, $clients * 200
print(f'{$clients:<8} {r:<12.2f} {e:<12.2f} {u:<12.2f} {e / r:<16.3f} {u / r:<16.3f} {r / n * 1e6:.2f}, {e / n * 1e6:.2f}, {u / n * 1e6:.2f}')"
done
