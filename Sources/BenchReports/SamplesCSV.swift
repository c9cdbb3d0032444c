import BenchCore
import BenchScenarios

/// `samples.csv`: one row per measured message, delivered or lost, streamed straight from the recording.
///
/// Times are nanoseconds after the run's start (`clock_origin_ns` in `run.csv`); an empty time never happened.
/// Sequence numbers count measured messages from 0 (warmup messages are not in the file).
public enum SamplesCSV {
    public static let fileName = "samples.csv"

    public static let roundtripHeader = [
        "client", "seq", "scheduled_ns", "sent_ns", "echo_ns", "rtt_ns", "lag_ns", "lost", "outcome",
    ]
    public static let fanoutHeader = [
        "broadcast", "client", "t0_ns", "write_ns", "recv_ns", "echo_ns", "delivery_ns", "rtt_ns", "lost", "outcome",
    ]

    /// Writes `samples.csv`: roundtrip by client then sequence, fanout by broadcast then client.
    public static func write<Sink: ByteSink>(_ recording: RunRecording, to writer: inout CSVWriter<Sink>) throws {
        let configuration = recording.configuration
        let origin = recording.startNanoseconds
        let measured = configuration.warmup..<configuration.sequencesPerClient
        switch configuration.scenario {
        case .roundtrip:
            try writer.row(roundtripHeader)
            for client in 0..<configuration.clients {
                for sequence in measured {
                    let index = recording.messageIndex(sequence: sequence, client: client)
                    guard recording.isMeasured(message: index) else { continue }
                    let rtt = recording.roundTrip(ofMessage: index)
                    writer.field(client)
                    writer.field(sequence - configuration.warmup)
                    writer.time(recording.scheduled[index], since: origin)
                    writer.time(recording.written[index], since: origin)
                    writer.time(recording.echoed[index], since: origin)
                    writer.nanoseconds(rtt)
                    writer.nanoseconds(recording.sendLag(ofScheduledSend: index))
                    writer.flag(rtt == nil)
                    writer.field(recording.outcome[index].name)
                    try writer.endRow()
                }
            }
        case .fanout:
            try writer.row(fanoutHeader)
            for sequence in measured {
                for client in 0..<configuration.clients {
                    let index = recording.messageIndex(sequence: sequence, client: client)
                    guard recording.isMeasured(message: index) else { continue }
                    let delivery = recording.delivery(ofMessage: index)
                    writer.field(sequence - configuration.warmup)
                    writer.field(client)
                    writer.time(recording.broadcastStart[sequence], since: origin)
                    writer.time(recording.written[index], since: origin)
                    writer.time(recording.received[index], since: origin)
                    writer.time(recording.echoed[index], since: origin)
                    writer.nanoseconds(delivery)
                    writer.nanoseconds(recording.roundTrip(ofMessage: index))
                    writer.flag(delivery == nil)
                    writer.field(recording.outcome[index].name)
                    try writer.endRow()
                }
            }
        }
    }
}
