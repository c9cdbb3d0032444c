import BenchCore
import BenchNet
import Synchronization

/// The threads one process runs its clients on, whatever their role: a share of the ids each (``shares(of:threads:)``),
/// on a thread of its own named `name`, its timer slack minimized and, with `--pin`, pinned to the run's client CPU.
/// The built-in server's clients (``ClientThreads``), a target's groups in this process (``ClientGroupThreads``), in a
/// child process and in an agent all start here; what a thread runs is its role's.
public final class ClientThreadSet<Result: Sendable> {
    private var threads: [NativeThread<Result>] = []
    private let finished = FinishedThreads()
    /// Why a thread could not start; the ones before it run, and the caller stops and joins them. Nil: all started.
    public private(set) var startFailure: SystemError?

    /// Starts a thread per share, in order; each runs `body` with its index, its share and, when it could not be placed
    /// on the CPU asked for, why (the body decides what that failure means for its role).
    public init(
        _ shares: [Range<Int>], name: String, cpu: Int?,
        _ body: @escaping @Sendable (_ index: Int, _ share: Range<Int>, _ placement: SystemError?) -> Result
    ) {
        for (index, share) in shares.enumerated() {
            do {
                threads.append(try NativeThread.spawn(name: name) { [finished] in
                    defer { finished.count.add(1, ordering: .releasing) }
                    CPUPlacement.minimizeTimerSlack()
                    var placement: SystemError?
                    if let cpu {
                        do throws(SystemError) { try CPUPlacement.pinCurrentThread(to: cpu) } catch { placement = error }
                    }
                    return body(index, share, placement)
                })
            } catch {
                startFailure = error
                return
            }
        }
    }

    /// `ids` cut into `threads` consecutive shares, the empty ones left out (more threads than clients); with
    /// `perConnection` above 1 (`--streams-per-connection`), cut between connections of that many, so that only the last
    /// share's last connection carries fewer.
    public static func shares(of ids: Range<Int>, threads: Int, perConnection: Int = 1) -> [Range<Int>] {
        let connections = (ids.count + perConnection - 1) / perConnection
        return (0..<connections).evenShares(threads).filter { !$0.isEmpty }.map { share in
            ids.lowerBound + share.lowerBound * perConnection..<min(ids.upperBound, ids.lowerBound + share.upperBound * perConnection)
        }
    }

    /// How many threads started (all of them unless ``startFailure``).
    public var startedCount: Int { threads.count }

    /// True once every thread started has returned.
    public var allFinished: Bool { finished.count.load(ordering: .acquiring) == threads.count }

    /// Waits for every thread started and returns their results, in order.
    public func join() -> [Result] { threads.map { $0.join() } }
}

/// How many of a process's client threads have ended.
final class FinishedThreads: Sendable {
    let count = Atomic<Int>(0)
}
