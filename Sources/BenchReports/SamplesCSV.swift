import BenchClients
import BenchCore
import BenchScenarios

/// `samples.csv`: one row per measured message, delivered or lost, written as the run goes, in the order the messages
/// settled (``RunStream``); `interval` is the report interval (`timeline.csv`) it fell due in, where it counts.
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

    /// Chat: one row per delivery of a member's message (`sender`, its `seq`) to another member of its room (`client`);
    /// `sent_ns` is the sender's write, t0 of its delivery, spread and completion.
    public static let chatHeader = [
        "sender", "seq", "client", "sent_ns", "recv_ns", "delivery_ns", "lost", "outcome",
    ]

    /// The columns of a run with these settings.
    public static func header(_ scenario: Scenario, timestamps: TimestampSource) -> [String] {
        var header: [String]
        switch scenario {
        case .fanout: header = fanoutHeader
        case .roundtrip: header = roundtripHeader
        case .chat: header = chatHeader
        }
        if timestamps.usesKernel {
            switch scenario {
            case .fanout: header += ["user_t0_ns", "user_write_ns", "user_recv_ns", "user_echo_ns"]
            case .roundtrip: header += ["user_sent_ns", "user_echo_ns"]
            case .chat: header += ["user_sent_ns", "user_recv_ns"]
            }
            header.append("kernel_stamps_missing")
        }
        if timestamps == .both { header.append("stack_ns") }
        header.append("interval")
        return header
    }

    /// Writes the row of message `m`, due in report interval `interval`, of a run that started at `origin` (the
    /// header is the caller's, once). Allocates nothing.
    public static func writeRow<Sink: ByteSink>(
        _ m: SettledMessage, reader: SettledMessageReader, origin: UInt64, warmup: Int, interval: Int,
        to writer: inout CSVWriter<Sink>
    ) throws {
        let kernel = reader.timestamps.usesKernel
        switch reader.scenario {
        case .roundtrip:
            let rtt = reader.roundTrip(m)
            writer.field(m.client)
            writer.field(m.sequence - warmup)
            writer.time(m.scheduled, since: origin)
            writer.time(m.written == 0 ? 0 : reader.sendTime(m), since: origin)
            writer.time(m.echoed == 0 ? 0 : reader.echoTime(m), since: origin)
            writer.nanoseconds(rtt)
            writer.nanoseconds(reader.sendLag(m))
            writer.flag(rtt == nil)
            writer.field(m.outcome.name)
            if kernel {
                writer.time(m.written, since: origin)
                writer.time(m.echoed, since: origin)
            }
        case .chat:
            let delivery = reader.delivery(m)
            writer.field(m.sender)
            writer.field(m.sequence - warmup)
            writer.field(m.client)
            writer.time(reader.broadcastStartTime(m), since: origin)
            writer.time(m.received == 0 ? 0 : reader.receiveTime(m), since: origin)
            writer.nanoseconds(delivery)
            writer.flag(delivery == nil)
            writer.field(m.outcome.name)
            if kernel {
                writer.time(m.broadcastStart, since: origin)
                writer.time(m.received, since: origin)
            }
        case .fanout:
            let delivery = reader.delivery(m)
            writer.field(m.sequence - warmup)
            writer.field(m.client)
            writer.time(reader.broadcastStartTime(m), since: origin)
            writer.time(m.written == 0 ? 0 : reader.sendTime(m), since: origin)
            writer.time(m.received == 0 ? 0 : reader.receiveTime(m), since: origin)
            writer.time(m.echoed == 0 ? 0 : reader.echoTime(m), since: origin)
            writer.nanoseconds(delivery)
            writer.nanoseconds(reader.roundTrip(m))
            writer.flag(delivery == nil)
            // A target's subscribers only read: their measured messages were delivered, not echoed.
            writer.field(m.outcome == .echoed && !reader.hasEchoes ? "delivered" : m.outcome.name)
            if kernel {
                writer.time(m.broadcastStart, since: origin)
                writer.time(m.written, since: origin)
                writer.time(m.received, since: origin)
                writer.time(m.echoed, since: origin)
            }
        }
        if kernel {
            let missing = reader.missingKernelStamps(m)
            let echoed = m.outcome == .echoed || m.outcome == .late
            writer.field(echoed ? missing.send + missing.receive : 0)
        }
        if reader.timestamps == .both { writer.nanoseconds(reader.stack(m)) }
        writer.field(interval)
        try writer.endRow()
    }
}
