/// What the ledger's events take and what they answer: an echo's stamps, and what the caller must do.
extension MessageLedger {
    /// An echo's times, already on the collector's clock (the caller puts an agent's stamps there first).
    public struct EchoStamps: Equatable, Sendable {
        /// When the client's read returned the message (tr), and the kernel's stamp of its arrival (0: none).
        public var received: UInt64
        public var receivedKernel: UInt64 = 0
        /// When the echo reached the measuring end (the built-in server's read; a target client's own read, the same
        /// as `received`), and its kernel stamp; 0 where the path has no echo leg (a target's subscriber).
        public var echoed: UInt64 = 0
        public var echoedKernel: UInt64 = 0
        /// When the measuring thread took the echo in: no time of it can be later.
        public var arrival: UInt64
        /// How far a kernel receive stamp may lie outside the write and the read (two clock conversions'
        /// uncertainty); nil: kernel receive stamps are not checked (a target's clients stamp their own reads).
        public var kernelTolerance: UInt64?

        public init(
            received: UInt64, receivedKernel: UInt64 = 0, echoed: UInt64 = 0, echoedKernel: UInt64 = 0,
            arrival: UInt64, kernelTolerance: UInt64? = nil
        ) {
            (self.received, self.receivedKernel, self.echoed, self.echoedKernel) = (received, receivedKernel, echoed, echoedKernel)
            (self.arrival, self.kernelTolerance) = (arrival, kernelTolerance)
        }
    }

    /// What the caller must do with an echo.
    public enum EchoAction: Equatable, Sendable {
        /// In time: a measurement, recorded. The message left flight.
        case measured(message: Int)
        /// After its timeout: recorded (its times show when), lost for the metrics. `settled`: it left flight now (a
        /// closed loop had not yet given up on it).
        case late(message: Int, settled: Bool)
        /// Its receive time cannot be true: the message is lost as `invalid_timestamp`, and the peer that said so is
        /// not to be believed (the built-in server closes it; a target's side records it).
        case implausible(message: Int, settled: Bool, reason: String)
        /// A second echo of a message already echoed (or already found false): counted, nothing else.
        case duplicate
        /// Its row was handed on long ago (it timed out): counted, nothing else.
        case stale
        /// Of a message never written to this client (`inRing`: its row is held, but it was never written), or of
        /// one outside the ring altogether (of another run, or forged): the peer echoes what it was not sent.
        case notSent(sequence: Int, client: Int, inRing: Bool)

        /// The message that left flight with this echo (the send driver's closed loop waits for it); nil when none did.
        public var settledMessage: Int? {
            switch self {
            case .measured(let message): return message
            case .late(let message, true), .implausible(let message, true, _): return message
            default: return nil
            }
        }
    }

    /// What the caller must do with a chat sender's read of its own message.
    public enum OwnCopyAction: Equatable, Sendable {
        /// In time: the message's round trip.
        case measured
        /// After the timeout: its round trip is lost.
        case late
        /// A second copy, or one whose message was handed on long ago: counted, nothing else.
        case duplicate
        case stale
        /// Of no message this run sent or waits a copy of, or at an impossible time: the clients' side records why.
        case unexpected(String)
    }

    /// What the caller must do with a stamp a client's group reported for a write it made.
    public enum StampAction: Equatable, Sendable {
        /// Taken: the message's write time is the group's.
        case taken
        /// The stamp cannot be true (before the order or after its report): the message is lost as
        /// `invalid_timestamp`; `settled` when it left flight now.
        case implausible(settled: Bool)
        /// About a message not in flight (settled, handed on, never ordered): changes nothing.
        case ignored
    }
}
