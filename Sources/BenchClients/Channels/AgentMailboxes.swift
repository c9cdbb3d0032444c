import BenchCore
import Synchronization

/// An agent's client threads hand their connect times to its main thread here (once each, not per message), with
/// their phases over a transport that has more than a TCP connect.
public final class ConnectTimesMailbox: Sendable {
    public typealias Entry = (client: Int, nanoseconds: UInt64, phases: ConnectPhases?)

    private let pending = Mutex<[Entry]>([])

    public init() {}

    func add(_ times: [Entry]) { pending.withLock { $0.append(contentsOf: times) } }

    public func take() -> [Entry] {
        pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }
}

/// An agent's client threads publish their busy share here once a second (by their first id), for the agent to send to
/// the server: what the run says of its harness's load includes the agents'.
public final class ThreadLoadBoard: Sendable {
    private let loads = Mutex<[Int: UInt64]>([:])

    public init() {}

    /// Thread `first`'s busy share since its clients all said hello, in parts per million.
    func post(first: Int, partsPerMillion: UInt64) { loads.withLock { $0[first] = partsPerMillion } }

    public func take() -> [(first: Int, partsPerMillion: UInt64)] {
        loads.withLock { loads in
            defer { loads.removeAll() }
            return loads.map { ($0.key, $0.value) }
        }
    }
}
