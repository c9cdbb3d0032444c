/// This process's end of the channel to a child process that runs a share of a target run's clients
/// (`--client-procs`), and the child's process id (listed in `agents.csv`).
public struct ChildChannel: Sendable, Equatable {
    public let descriptor: Int32
    public let processID: Int

    public init(descriptor: Int32, processID: Int) {
        self.descriptor = descriptor
        self.processID = processID
    }
}

/// The measuring thread's end of a channel from a share of the subscribers (``ClientGroup``): the descriptor
/// (non-blocking) and the ids it carries. It carries read reports (``FrameKind/read``) and ``ClientReport``s; an agent's control
/// connection (`bench serve fanout --target`) carries its hello first, and clock probes and reports among them.
struct ClientGroupChannel: Sendable {
    let descriptor: Int32
    var ids: Range<Int>
    var isOpen = true
    /// Bytes for it wait that its socket did not take: the loop watches it for writing too.
    var waitsToWrite = false
    /// An agent's control connection: nothing but its hello is taken before it is welcomed; the run closes it.
    let isAgent: Bool
    /// Once welcomed: the agent's place in ``RunRecording/agents`` (its clock).
    var agent: Int?

    init(descriptor: Int32, ids: Range<Int>) {
        self.descriptor = descriptor
        self.ids = ids
        self.isAgent = false
    }

    /// An agent's control connection, before its hello.
    init(agentConnection descriptor: Int32) {
        self.descriptor = descriptor
        self.ids = 0..<0
        self.isAgent = true
    }
}
