import BenchCore
import BenchScenarios

/// `samples.csv`: one row per measured message, delivered or lost, streamed straight from the recording.
///
/// Times are nanoseconds after the run's start (`clock_origin_ns` in `run.csv`); an empty time never happened.
/// Sequence numbers count measured messages from 0 (warmup messages are not in the file). With kernel stamps the
/// times are the kernel's (the user-space one where the kernel gave none, counted in `kernel_stamps_missing`; in
/// fanout only the first write of a broadcast has a transmit stamp, its t0), and the user-space times follow in
/// `user_` columns; with `--timestamps both`, `stack_ns` too.
public enum SamplesCSV {
    public static let fileName = "samples.csv"

    public static let roundtripHeader = [
        "client", "seq", "scheduled_ns", "sent_ns", "echo_ns", "rtt_ns", "lag_ns", "lost", "outcome",
    ]
    public static let fanoutHeader = [
        "broadcast", "client", "t0_ns", "write_ns", "recv_ns", "echo_ns", "delivery_ns", "rtt_ns", "lost", "outcome",
    ]

    /// The columns of a run with these settings.
    public static func header(_ scenario: Scenario, timestamps: TimestampSource) -> [String] {
        var header = scenario == .fanout ? fanoutHeader : roundtripHeader
        if timestamps.usesKernel {
            header += scenario == .fanout
                ? ["user_t0_ns", "user_write_ns", "user_recv_ns", "user_echo_ns"] : ["user_sent_ns", "user_echo_ns"]
            header.append("kernel_stamps_missing")
        }
        if timestamps == .both { header.append("stack_ns") }
        return header
    }

    /// Writes `samples.csv`: roundtrip by client then sequence, fanout by broadcast then client.
    public static func write<Sink: ByteSink>(_ recording: RunRecording, to writer: inout CSVWriter<Sink>) throws {
        let configuration = recording.configuration
        let origin = recording.startNanoseconds
        let measured = configuration.warmup..<configuration.sequencesPerClient
        let kernel = configuration.timestamps.usesKernel
        try writer.row(header(configuration.scenario, timestamps: configuration.timestamps))
        /// The user-space times (already written) are followed by the count of kernel stamps the row's times lack.
        func writeStampColumns(_ index: Int) throws {
            if kernel {
                let echoed = recording.outcome[index] == .echoed || recording.outcome[index] == .late
                let missing = recording.missingKernelStamps(ofMessage: index)
                writer.field(echoed ? missing.send + missing.receive : 0)
            }
            if configuration.timestamps == .both { writer.nanoseconds(recording.stack(ofMessage: index)) }
            try writer.endRow()
        }
        switch configuration.scenario {
        case .roundtrip:
            for client in 0..<configuration.clients {
                for sequence in measured {
                    let index = recording.messageIndex(sequence: sequence, client: client)
                    guard recording.isMeasured(message: index) else { continue }
                    let rtt = recording.roundTrip(ofMessage: index)
                    writer.field(client)
                    writer.field(sequence - configuration.warmup)
                    writer.time(recording.scheduled[index], since: origin)
                    writer.time(recording.written[index] == 0 ? 0 : recording.sendTime(ofMessage: index), since: origin)
                    writer.time(recording.echoed[index] == 0 ? 0 : recording.echoTime(ofMessage: index), since: origin)
                    writer.nanoseconds(rtt)
                    writer.nanoseconds(recording.sendLag(ofScheduledSend: index))
                    writer.flag(rtt == nil)
                    writer.field(recording.outcome[index].name)
                    if kernel {
                        writer.time(recording.written[index], since: origin)
                        writer.time(recording.echoed[index], since: origin)
                    }
                    try writeStampColumns(index)
                }
            }
        case .fanout:
            for sequence in measured {
                for client in 0..<configuration.clients {
                    let index = recording.messageIndex(sequence: sequence, client: client)
                    guard recording.isMeasured(message: index) else { continue }
                    let delivery = recording.delivery(ofMessage: index)
                    writer.field(sequence - configuration.warmup)
                    writer.field(client)
                    writer.time(recording.broadcastStartTime(sequence), since: origin)
                    writer.time(recording.written[index] == 0 ? 0 : recording.sendTime(ofMessage: index), since: origin)
                    writer.time(recording.received[index] == 0 ? 0 : recording.receiveTime(ofMessage: index), since: origin)
                    writer.time(recording.echoed[index] == 0 ? 0 : recording.echoTime(ofMessage: index), since: origin)
                    writer.nanoseconds(delivery)
                    writer.nanoseconds(recording.roundTrip(ofMessage: index))
                    writer.flag(delivery == nil)
                    writer.field(recording.outcome[index].name)
                    if kernel {
                        writer.time(recording.broadcastStart[sequence], since: origin)
                        writer.time(recording.written[index], since: origin)
                        writer.time(recording.received[index], since: origin)
                        writer.time(recording.echoed[index], since: origin)
                    }
                    try writeStampColumns(index)
                }
            }
        }
    }
}
