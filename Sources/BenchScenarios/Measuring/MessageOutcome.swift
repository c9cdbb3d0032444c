/// What became of one message, as the server saw it: its one fate. One byte per message in a ``RunRecording``.
///
/// Only ``echoed`` is a measurement; every other fate of a message that had its turn is a loss, for every metric
/// of that message (delivery and rtt alike), so that `samples.csv` filtered by `lost` or `outcome` gives back
/// `summary.csv` exactly.
public enum MessageOutcome: UInt8, Sendable {
    /// Its turn never came (the run was interrupted before).
    case notDispatched
    /// Written to the socket (or queued behind earlier bytes); no echo yet. No message ends the run like this.
    case written
    /// Written, and its echo arrived within the timeout (and, in fanout, the client's read within the timeout of
    /// the broadcast's start): the only outcome that is measured.
    case echoed
    /// Written; its timeout passed with no echo.
    case timedOut
    /// Written, and its echo came, but after the timeout: kept in the row (its times show when), lost for the
    /// metrics. A second echo of it is a duplicate.
    case late
    /// Written, and the peer echoed it with a receive time that cannot be true (before the write, or after the
    /// echo arrived): not a measurement. The connection was closed for it.
    case invalidTimestamp
    /// Written, but the connection closed before its echo came.
    case writtenThenClosed
    /// Not written: the client's connection was already closed.
    case droppedClosed
    /// Not written: the client's write queue was full.
    case droppedQueueFull

    /// True when the message had its turn, whatever became of it: it counts in the run, delivered or lost.
    public var wasDispatched: Bool { self != .notDispatched }

    /// True when the message is a measurement; false for every kind of loss.
    public var isMeasurement: Bool { self == .echoed }

    /// The name in `samples.csv`'s `outcome` column.
    public var name: String {
        switch self {
        case .notDispatched: return "not_sent"
        case .written: return "in_flight"
        case .echoed: return "echoed"
        case .timedOut: return "timed_out"
        case .late: return "late"
        case .invalidTimestamp: return "invalid_timestamp"
        case .writtenThenClosed: return "connection_closed"
        case .droppedClosed: return "dropped_closed"
        case .droppedQueueFull: return "dropped_queue_full"
        }
    }
}
