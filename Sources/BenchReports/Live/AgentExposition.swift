import BenchClients
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
        var out = ExpositionText(openMetrics: openMetrics)
        let escape = PrometheusExposition.escape
        let scenario = state.welcome.flatMap { Int($0.scenario) < Scenario.allCases.count ? Scenario.allCases[Int($0.scenario)].rawValue : nil } ?? ""
        let transport = state.spec.map { $0.target?.url.scheme.rawValue ?? $0.transport.rawValue } ?? ""
        out.info(
            "bench_agent", "The run this agent joined.",
            labels: "{server=\"\(escape(server))\",scenario=\"\(scenario)\",transport=\"\(escape(transport))\","
                + "target=\"\(escape(state.spec?.target?.url.description ?? ""))\"}")
        out.gauge("bench_agent_clients", "Client ids this agent was given.", "\(state.welcome?.clients ?? 0)")
        out.gauge("bench_agent_first_client", "The first of them.", "\(state.welcome?.firstClient ?? 0)")
        if let clock = state.clock {
            out.gauge(
                "bench_agent_clock_offset_seconds", "The collector's clock minus this agent's, as the latest round found.",
                (clock.offset < 0 ? "-" : "") + PrometheusExposition.seconds(clock.offset.magnitude), unit: "seconds")
            out.gauge(
                "bench_agent_clock_error_seconds", "The latest round's bound on that offset.",
                PrometheusExposition.seconds(clock.error), unit: "seconds")
        }
        out.counter("bench_agent_clock_rounds", "Clock rounds so far.", [("", state.clockRounds)])
        out.gauge("bench_agent_running", "1 while this agent's clients run, 0 before and after.", state.phase == .running ? "1" : "0")
        return out.finished
    }
}
