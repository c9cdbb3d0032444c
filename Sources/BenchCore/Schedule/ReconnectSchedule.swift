/// `--reconnect` for one thread's clients, whatever their role (the built-in server's, a target's subscribers): which
/// of them wait to connect again, when (``ReconnectBackoff``: 2^n with jitter), and at which try. One rule for every
/// client engine: a connection the server used that closes starts a client's tries from the first; a return that
/// closes before the server took it is that try failing, and the next waits longer; past its tries a client gives up.
public struct ReconnectSchedule: Sendable {
    /// What becomes of a client that lost its connection.
    public enum Decision: Equatable, Sendable {
        /// It tries again at `due` (monotonic ns).
        case tryAgain(due: UInt64)
        /// It has used its tries (`tries` of them): it stays away.
        case gaveUp(tries: Int)
    }

    public let backoff: ReconnectBackoff
    /// The jitter of the waits, a stream of its own per thread (by its first client).
    private var random: SplitMix64
    /// Clients waiting to try again: when, their place, and the try (from 0) it will be.
    private var waiting: [(due: UInt64, place: Int, attempt: Int)] = []
    /// Per place, the try its current connect is (0 for a first connect or the first try after a drop).
    private var attempts: [Int]

    /// The schedule of `count` clients from `firstClient` of a run of `seed`.
    public init(_ backoff: ReconnectBackoff, seed: UInt64, firstClient: Int, count: Int) {
        self.backoff = backoff
        random = SplitMix64(seed: seed, stream: Self.jitterStream &+ UInt64(firstClient))
        attempts = Array(repeating: 0, count: count)
    }

    /// What a client that used its `tries` after a drop is said to have done (an event): one text for every role.
    public static func gaveUpText(tries: Int) -> String { "gave up reconnecting after \(tries) tries" }

    /// Salt of the jitter's stream.
    static var jitterStream: UInt64 { 0x7265_636F_6E6E_6563 }

    /// The client at `place` lost its connection at `now`: after a connection the server used (`afterUse`) its tries
    /// start again from the first; otherwise (a try that failed) the next one. When it tries, or that it gave up.
    public mutating func lost(_ place: Int, afterUse: Bool, at now: UInt64) -> Decision {
        let attempt = afterUse ? 0 : attempts[place] + 1
        guard backoff.allows(attempt: attempt) else { return .gaveUp(tries: attempt) }
        let due = now &+ backoff.delay(attempt: attempt, random: &random)
        waiting.append((due, place, attempt))
        return .tryAgain(due: due)
    }

    /// Takes the clients whose try is due at `now`, at most `limit`, into `places` (emptied first; the order does not
    /// matter), each one's try recorded as its current one.
    public mutating func takeDue(at now: UInt64, limit: Int, into places: inout [Int]) {
        places.removeAll(keepingCapacity: true)
        var index = 0
        while index < waiting.count && places.count < limit {
            guard waiting[index].due <= now else {
                index += 1
                continue
            }
            waiting.swapAt(index, waiting.count - 1)  // O(1)
            let (_, place, attempt) = waiting.removeLast()
            attempts[place] = attempt
            places.append(place)
        }
    }

    /// When the earliest waiting try is due; nil when none waits.
    public var earliest: UInt64? { waiting.lazy.map(\.due).min() }

    /// True when no client waits to try again.
    public var isEmpty: Bool { waiting.isEmpty }

    /// The run is over: nobody tries again.
    public mutating func cancelAll() { waiting.removeAll() }
}
