import BenchCore
import BenchNet
import BenchScenarios

/// An agent's own figures (`bench clients --metrics-listen`), in Prometheus's text format or OpenMetrics: the run it
/// joined and its share (`bench_agent_info{server,scenario,transport,target}`, `bench_agent_clients`,
/// `bench_agent_first_client`), its clock put on the collector's (`bench_agent_clock_offset_seconds`, its bound
/// `bench_agent_clock_error_seconds`, `bench_agent_clock_rounds_total`) and whether its clients run
/// (`bench_agent_running`). Its clients' measurements are the collector's to serve.
public enum AgentExposition {
    /// The agent's HTTP thread's answer to `request`: `/metrics`, 404 otherwise.
    public static func respond(to request: HTTPRequestHead, status: AgentStatus) -> HTTPServer.Response {
        guard request.path == "/metrics" else {
            return HTTPServer.Response(
                status: 404, contentType: "text/plain",
                text: "an agent serves /metrics; the run's page is the collector's (bench serve --metrics-listen)\n")
        }
        let openMetrics = request.fields["accept"]?.contains("application/openmetrics-text") == true
        return HTTPServer.Response(
            contentType: openMetrics
                ? "application/openmetrics-text; version=1.0.0; charset=utf-8" : "text/plain; version=0.0.4; charset=utf-8",
            text: render(status.current, server: status.server, openMetrics: openMetrics))
    }

    static func render(_ state: AgentStatus.State, server: String, openMetrics: Bool) -> String {
        var text = ""
        func gauge(_ name: String, _ help: String, _ value: String, unit: String? = nil) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            if openMetrics, let unit { text += "# UNIT \(name) \(unit)\n" }
            text += "\(name) \(value)\n"
        }
        let escape = PrometheusExposition.escape
        let scenario = state.welcome.map { $0.scenario == 0 ? "fanout" : "roundtrip" } ?? ""
        let transport = state.spec.map { $0.target?.scheme.rawValue ?? $0.transport.rawValue } ?? ""
        let labels = "{server=\"\(escape(server))\",scenario=\"\(scenario)\",transport=\"\(escape(transport))\","
            + "target=\"\(escape(state.spec?.target?.description ?? ""))\"}"
        text += "# HELP \(openMetrics ? "bench_agent" : "bench_agent_info") The run this agent joined.\n"
        text += "# TYPE \(openMetrics ? "bench_agent info" : "bench_agent_info gauge")\nbench_agent_info\(labels) 1\n"
        gauge("bench_agent_clients", "Client ids this agent was given.", "\(state.welcome?.clients ?? 0)")
        gauge("bench_agent_first_client", "The first of them.", "\(state.welcome?.firstClient ?? 0)")
        if let clock = state.clock {
            let offset = (clock.offset < 0 ? "-" : "") + PrometheusExposition.seconds(clock.offset.magnitude)
            gauge("bench_agent_clock_offset_seconds", "The collector's clock minus this agent's, as the latest round found.",
                offset, unit: "seconds")
            gauge("bench_agent_clock_error_seconds", "The latest round's bound on that offset.",
                PrometheusExposition.seconds(clock.error), unit: "seconds")
        }
        text += "# HELP \(openMetrics ? "bench_agent_clock_rounds" : "bench_agent_clock_rounds_total") Clock rounds so far.\n"
        text += "# TYPE \(openMetrics ? "bench_agent_clock_rounds" : "bench_agent_clock_rounds_total") counter\n"
        text += "bench_agent_clock_rounds_total \(state.clockRounds)\n"
        gauge("bench_agent_running", "1 while this agent's clients run, 0 before and after.", state.phase == .running ? "1" : "0")
        if openMetrics { text += "# EOF\n" }
        return text
    }
}
