import BenchClients
import BenchCore

/// What a run's main metric (delivery for fan-out and chat, rtt for roundtrip) got out of the messages it sent: a run
/// that measured nothing is no result, however it ended, and a run that lost more than a small share says so even
/// without thresholds.
public struct MeasurementYield: Sendable {
    /// The share of lost values above which a run warns, thresholds or not.
    public static let warningShare = 0.01

    /// Values of the main metric measured.
    public let measured: Int
    /// Values of the main metric lost.
    public let lost: Int
    /// The main metric's name.
    public let metric: String
    private let configuration: RunConfiguration
    private let messagesSent: Int
    /// Connections closed early (or other events): the run has an events.csv.
    private let hasEvents: Bool

    /// The yield of `analysis`'s main metric.
    public init(_ analysis: RunAnalysis) {
        configuration = analysis.recording.configuration
        let metric = RunAnalysis.Metric.main(of: configuration.scenario)
        let summary = analysis.summary(of: metric)
        self.metric = metric.rawValue
        measured = summary?.count ?? 0
        lost = summary?.lost ?? 0
        messagesSent = analysis.measuredMessages
        hasEvents = !analysis.recording.connectionEvents.isEmpty
    }

    /// True when messages were sent after the warmup and every value of the main metric was lost.
    public var lostEverything: Bool { measured == 0 && lost > 0 && messagesSent > 0 }

    /// The share of the main metric's values that were lost; 0 when there were none.
    public var lostShare: Double {
        measured + lost == 0 ? 0 : Double(lost) / Double(measured + lost)
    }

    /// Why nothing was measured, with its likely cause, for people; nil when something was.
    public var nothingMeasured: String? {
        guard measured == 0 else { return nil }
        guard messagesSent > 0, lost > 0 else {
            return "nothing was measured: no message was sent after the warmup (--warmup \(configuration.warmup))"
        }
        let all = "all \(lost) \(metric) values were lost"
        guard let target = configuration.target?.url.description else {
            return configuration.scenario == .roundtrip
                ? "nothing was measured: \(all): no echo reached the server within --timeout"
                : "nothing was measured: \(all): no client received a message within --timeout"
        }
        switch configuration.scenario {
        case .roundtrip:
            return "nothing was measured: \(all): no echo reached the sender: does \(target) send a client its own "
                + "messages?"
        case .fanout:
            return "nothing was measured: \(all): no subscriber received a marker from \(target): check --subscribe "
                + "(what each client subscribes to) and that the server relays the publisher's messages to it"
        case .chat:
            return "nothing was measured: \(all): no member received a marker from \(target): check --subscribe and "
                + "--publish (a member's room is {room}) and that the server relays a member's message to its room"
        }
    }

    /// `Warning: 30 of 1000 delivery values (3.0%) were lost …` when more than ``warningShare`` were; nil otherwise.
    public var lossWarning: String? {
        guard measured > 0, lostShare > Self.warningShare else { return nil }
        return Self.lossWarning(lost: lost, of: measured + lost, metric: metric, hasEvents: hasEvents)
    }

    /// The loss warning's words, shared with the saved run's reports; events.csv is named where the run has one.
    public static func lossWarning(lost: Int, of total: Int, metric: String, hasEvents: Bool) -> String {
        let percent = DecimalText.fixed(100 * Double(lost) / Double(max(total, 1)), fractionDigits: 1)
        return "\(lost) of \(total) \(metric) values (\(percent)%) were lost: see samples.csv (lost=1)"
            + (hasEvents ? " and events.csv" : "")
    }
}

extension RunRecording {
    /// Marks a run that ran to its end but measured nothing as failed, with `reason`, in its events too.
    public mutating func failUnmeasured(_ reason: String) {
        guard status == .complete else { return }
        status = .failed
        statusReason = reason
        record(ConnectionEvent(side: .run, client: nil, time: endNanoseconds, reason: reason))
    }
}
