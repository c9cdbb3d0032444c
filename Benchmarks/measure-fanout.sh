# Sourced by the benchmarks that set targets side by side (grpc.sh, http2-front.sh, protocols-over-websocket.sh).
# measure_fanout TARGET [OPTIONS…]: one fan-out to $subscribers, 100 broadcasts every 20 ms, with $bench, its run folder
# under $work; prints delivery p50 and p99, spread p50 and p99 (µs), lost, and the harness's CPU time (user and system,
# the whole process's, setup and reports included) per message received (µs).
measure_fanout() {
    /usr/bin/time -f '%U %S' -o "$work/cpu" "$bench" fanout --target "$@" --clients "$subscribers" --messages 100 \
        --interval 20ms --out "$work" --json >"$work/one.json"
    python3 - "$work/one.json" "$work/cpu" <<'PY'
import json, sys
m = {x["metric"]: x for x in json.load(open(sys.argv[1]))["metrics"]}
user, system = map(float, open(sys.argv[2]).read().split())
d, s = m["delivery"], m["spread"]
print(d["p50_us"], d["p99_us"], s["p50_us"], s["p99_us"], d["lost"], (user + system) / max(d["count"], 1) * 1e6)
PY
}
