/// What became of one message, as the server saw it. One byte per message in a ``RunRecording``.
public enum MessageOutcome: UInt8, Sendable {
    /// Its turn never came (the run was interrupted before).
    case notDispatched
    /// Written to the socket (or queued behind earlier bytes); no echo yet.
    case written
    /// Written, and its echo arrived.
    case echoed
    /// Written; in closed loop, its timeout passed and the next message went out without its echo.
    case timedOut
    /// Written, but the connection closed before its echo came.
    case writtenThenClosed
    /// Not written: the client's connection was already closed.
    case droppedClosed
    /// Not written: the client's write queue was full.
    case droppedQueueFull

    /// True when the message had its turn, whatever became of it: it counts in the run, delivered or lost.
    public var wasDispatched: Bool { self != .notDispatched }
}
