import BenchCore
import BenchScenarios

/// `agents.csv` (`bench serve`): one row per agent (`bench clients`) that joined, in the order they did.
public enum AgentsCSV {
    public static let fileName = "agents.csv"

    public static let header = [
        "agent", "host", "pid", "first_client", "clients", "messages", "lost", "same_boot", "clock_offset_ns",
        "clock_error_ns", "clock_rounds", "clock_rounds_left_out", "clock_drift_ppm", "clock_offset_end_ns", "link",
    ]

    public static func write<Sink: ByteSink>(_ recording: RunRecording, to writer: inout CSVWriter<Sink>) throws {
        try writer.row(header)
        for (index, agent) in recording.agents.enumerated() {
            writer.field(index)
            writer.field(agent.host)
            writer.field(agent.pid)
            writer.field(agent.firstClient)
            writer.field(agent.clients)
            let clients = agent.firstClient..<agent.firstClient + agent.clients
            writer.field(recording.ledger.measuredPerClient.isEmpty ? 0 : recording.ledger.measuredPerClient[clients].reduce(0, +))
            writer.field(recording.ledger.lostPerClient.isEmpty ? 0 : recording.ledger.lostPerClient[clients].reduce(0, +))
            writer.flag(agent.sameBoot)
            let clock = agent.clock
            if let first = clock.first { writer.field(String(first.offset)) } else { writer.emptyField() }
            if let error = clock.error { writer.field(error) } else { writer.emptyField() }
            writer.field(clock.rounds)
            writer.field(clock.roundsLeftOut)
            if clock.measuresDrift { writer.field(clock.driftPPM, fractionDigits: 3) } else { writer.emptyField() }
            if let latest = clock.latest { writer.field(String(latest.offset)) } else { writer.emptyField() }
            if let link = agent.link { writer.field(link) } else { writer.emptyField() }
            try writer.endRow()
        }
    }
}
