import BenchCore
import Synchronization

/// What an agent (`bench clients`) can tell whoever watches it (`--metrics-listen`): the run it joined and its share,
/// what its clients speak, how its clock was put on the collector's, and whether its clients run. Set by
/// ``AgentRunner`` as it goes; read by the agent's HTTP thread.
public final class AgentStatus: Sendable {
    public enum Phase: String, Sendable {
        case joining, running, ended
    }

    public struct State: Sendable {
        public var phase = Phase.joining
        public var welcome: AgentWelcome?
        public var spec: ClientSpec?
        /// The latest clock round's estimate, and how many rounds there were.
        public var clock: ClockEstimate?
        public var clockRounds = 0
    }

    private let state = Mutex(State())
    /// Where the agent joins (`--connect`), for its identity.
    public let server: String

    public init(server: String) {
        self.server = server
    }

    public var current: State { state.withLock { $0 } }

    func joined(_ welcome: AgentWelcome, _ spec: ClientSpec) {
        state.withLock {
            $0.welcome = welcome
            $0.spec = spec
        }
    }

    func measured(_ clock: ClockEstimate) {
        state.withLock {
            $0.clock = clock
            $0.clockRounds += 1
        }
    }

    func enter(_ phase: Phase) {
        state.withLock { $0.phase = phase }
    }
}
