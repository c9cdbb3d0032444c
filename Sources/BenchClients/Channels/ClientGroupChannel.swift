import BenchNet

/// This process's end of the channel to a child process that runs a share of a target run's clients
/// (`--client-procs`), and the child's process id (listed in `agents.csv`).
public struct ChildChannel: Sendable, Equatable {
    /// This process's end: closed once, by the run's end or by whichever part of the run is done with it first.
    public let end: SharedDescriptor
    public let processID: Int

    public init(end: SharedDescriptor, processID: Int) {
        self.end = end
        self.processID = processID
    }

    /// The end's number, while it is open.
    public var descriptor: Int32 { end.rawValue }

    public static func == (a: ChildChannel, b: ChildChannel) -> Bool {
        a.end === b.end && a.processID == b.processID
    }
}

/// The measuring thread's end of a channel from a share of the subscribers (``ClientGroup``): the descriptor
/// (non-blocking) and the ids it carries. It carries read reports (``FrameKind/read``) and ``ClientReport``s; an agent's control
/// connection (`bench serve fanout --target`) carries its hello first, and clock probes and reports among them.
public struct ClientGroupChannel: Sendable {
    /// The measuring thread's end: a thread's channel, a child's (shared with its ``ChildChannel``) or an agent's
    /// connection, which the run closes.
    public let end: SharedDescriptor
    public var ids: Range<Int>
    public var isOpen = true
    /// Bytes for it wait that its socket did not take: the loop watches it for writing too.
    public var waitsToWrite = false
    /// An agent's control connection: nothing but its hello is taken before it is welcomed; the run closes it.
    public let isAgent: Bool
    /// Once welcomed: the agent's place in ``RunRecording/agents`` (its clock).
    public var agent: Int?

    /// The end's number, while it is open.
    public var descriptor: Int32 { end.rawValue }

    public init(end: SharedDescriptor, ids: Range<Int>) {
        self.end = end
        self.ids = ids
        self.isAgent = false
    }

    /// An agent's control connection, before its hello.
    public init(agentConnection end: SharedDescriptor) {
        self.end = end
        self.ids = 0..<0
        self.isAgent = true
    }
}
