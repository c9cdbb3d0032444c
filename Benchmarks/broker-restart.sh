#!/usr/bin/env bash
# The deploy: a broker restarted under load. nats-server (or mosquitto: BROKER=mosquitto) serves a fan-out of N
# subscribers with --reconnect; BREAK_AT seconds (default 8) after sending began the broker is killed (SIGKILL, as a
# crash or a container replaced), and DOWN_FOR seconds (default 1) later it starts again on its port. Prints, per N: how long until the last subscriber
# was back after the first close, the most returns within a second (the herd), the reconnect metric, and what was lost.
#
#   bash Benchmarks/broker-restart.sh [N ...]        default: 1000 10000
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-1000}")
[ $# -eq 0 ] && sizes=(1000 10000)
broker=${BROKER:-nats}
break_at=${BREAK_AT:-8}
down_for=${DOWN_FOR:-1}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
out=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$out"' EXIT
ulimit -n "$(ulimit -Hn)"

# Starts the broker on $port and waits until it accepts; one that exits at once (its port still held by the
# connections the killed one left in TIME_WAIT, for a broker without SO_REUSEADDR) is started again, for up to 10 s.
start_broker() {
    for _ in $(seq 1 50); do
        case "$broker" in
        nats) nats-server -a 127.0.0.1 -p "$port" >"$out/broker.log" 2>&1 & ;;
        mosquitto)
            printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_connections -1\n' "$port" >"$out/mosquitto.conf"
            mosquitto -c "$out/mosquitto.conf" >"$out/broker.log" 2>&1 & ;;
        esac
        pid=$!
        for _ in $(seq 1 40); do
            (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.05
        done
        sleep 0.2
    done
    echo "the broker did not start: $(tail -3 "$out/broker.log")" >&2
    exit 3
}

scheme=$([ "$broker" = nats ] && echo nats || echo mqtt)
for n in "${sizes[@]}"; do
    port=$((20000 + RANDOM % 20000))  # a port of its own per run: the last one's connections may still hold its port
    start_broker
    rm -rf "$out/runs"
    "$bench" fanout --target "$scheme://127.0.0.1:$port/deploy" --clients "$n" --client-threads 2 --duration 20s \
        --interval 100ms --arrival fixed --reconnect --reconnect-base 100ms --reconnect-max 2s --reconnect-tries 20 \
        --report-every 1s --quiet --out "$out/runs" >"$out/folder" 2>"$out/err" &
    run=$!
    # Sending has begun once the run's samples.csv has rows (it is synced every --report-every): the break comes
    # BREAK_AT seconds after that, whatever the setup of N subscribers took.
    # (the folder is hidden, .bench-run-…, until the run ends)
    until [ "$(cat "$out"/runs/.bench-run-*/samples.csv 2>/dev/null | wc -l)" -gt 1 ] || ! kill -0 "$run" 2>/dev/null; do
        sleep 0.1
    done
    sleep "$break_at"
    kill -9 "$pid"; wait "$pid" 2>/dev/null || true
    sleep "$down_for"
    start_broker
    wait "$run" || true
    folder=$(cat "$out/folder")
    if [ -z "$folder" ]; then
        echo "$broker, $n subscribers: the run wrote no folder: $(tail -3 "$out/err")"
        continue
    fi
    ms() { awk -v us="$1" 'BEGIN { printf "%.1f ms", us / 1000 }'; }
    value() { awk -F, -v k="$1" '$1 == k { print $2 }' "$folder/run.csv"; }
    metric() { awk -F, -v m="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) col = i } $1 == m { print $col }' "$folder/summary.csv"; }
    echo "$broker, $n subscribers, killed ${break_at}s into sending, down ${down_for}s: $(value status);" \
        "outages $(value client_outages), back $(value client_outages_back), gave up $(value clients_gave_up);" \
        "last back $(awk -v ns="$(value returns_last_back_ns)" 'BEGIN { printf "%.2f s", ns / 1e9 }') after the first close," \
        "at most $(value returns_peak_per_s) returns in a second; reconnect p50 $(ms "$(metric reconnect p50_us)")," \
        "p99 $(ms "$(metric reconnect p99_us)"); delivery lost $(metric delivery lost) of" \
        "$(( $(metric delivery count) + $(metric delivery lost) )) (delivery p99 $(ms "$(metric delivery p99_us)"))"
    kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
    pid=
done
