/// The harness's wire format: length-prefixed binary frames, every integer big-endian.
///
/// A frame is a 4-byte length (the number of bytes that follow it), a 1-byte ``FrameKind``, and a body
/// whose layout the kind fixes. Reading the length first and then exactly that many bytes is what makes
/// the stream immune to TCP splitting or coalescing writes (half and sticky packets).
///
///     hello   (20 bytes)   length=16 | kind=1 | version:u8 | reserved:u16 | client:u32 | token:u64
///     data    (>=40 bytes) length   | kind=2 | reserved:u8 | reserved:u16 | seq:u32 | client:u32
///                          | sent_ns:u64 | recv_ns:u64 | recv_kernel_ns:u64 | padding up to the message size
///     echo    (same as data, kind=3): the client's copy of a data frame, with recv_ns (when its read returned)
///                          and recv_kernel_ns (the kernel's receive stamp, 0 without) filled in
///     heartbeat (12 bytes) length=8 | kind=4 | reserved:u8 | reserved:u16 | client:u32
///     goodbye (12 bytes)   length=8 | kind=10 | reserved:u8 | reserved:u16 | client:u32 (the server's, at the end)
///     agent hello (48 bytes) length=44 | kind=5 | version:u8 | reserved:u16 | clients:u32 | token:u64
///                          | pid:u32 | boot:u64 | host:16 bytes (UTF-8, zero-padded)
///     agent welcome (48 bytes) length=44 | kind=6 | scenario:u8 | timestamps:u8 | reserved:u8 | first_client:u32
///                          | clients:u32 | run_token:u64 | payload:u32 | total_clients:u32 | heartbeat_ns:u64
///                          | reserved:u64
///     clock probe (32 bytes) length=28 | kind=7 | reserved:3 | t1:u64 | t2:u64 | t3:u64
///     clock reply (32 bytes) the probe with kind=8, t2 (the server's read) and t3 (before its write) filled in
///     clock report (32 bytes) length=28 | kind=9 | reserved:3 | offset_ns:i64 | error_ns:u64 | probes:u64
///     client report (20–532 bytes): from every client thread, a target's to its measuring thread, an agent's
///                          to the server (``ClientReport``); send report (24 bytes), read report (an echo frame's
///                          layout, kind=16) and delivery (the same, kind=15): from a target run's clients to its
///                          measuring thread (``SendReport``)
///
/// The agent frames go over an agent's control connection (`bench clients`): it asks for a number of client ids
/// with the token given to `bench serve` (a hash of it), and the server answers with the ids it gets and what its
/// clients need to know of the run (its own random token among them); a wrong token gets the connection closed.
/// Data and echo frames have the same size, so `--payload` is the size of a message on the wire in
/// both directions, header included. The hello's token is the run's own random number: a connection that
/// does not know it (a stray process, a client of another run) cannot take a client id.
public enum WireFormat {
    /// The protocol version a client announces in its hello; a server refuses any other.
    /// 3: the server's goodbye (kind 10) ends the run; a client of version 2 would take it for garbage.
    /// 4: a target run's client group reports a read as a read report (kind 16), no longer as an echo: an agent of
    /// version 3 would be dropped mid-run for its echoes, and would refuse a version 4 server's read reports.
    /// 5: a target's client reports its connect's phases with its subscription, and a client spec's protocol
    /// description carries its connection parameters: a version 4 agent would send neither as a version 5 server reads it.
    /// 6: an agent of the built-in server sends its clients' connect phases (kind 18), which a version 5 server would
    /// take for an unknown frame and drop the agent mid-run; a client group obeys a drop order (kind 17).
    /// 7: an agent of the built-in server reports its clients as every client thread does (kind 13: connect times and
    /// phases, events, load), no longer in kinds 11 and 18, which a version 6 server would take for garbage.
    public static let version: UInt8 = 7
    /// Size of the length field that starts every frame.
    public static let lengthFieldSize = 4
    /// Size of a hello frame, length field included.
    public static let helloFrameSize = 20
    /// Size of a heartbeat frame, length field included.
    public static let heartbeatFrameSize = 12
    /// Size of an agent's hello and of the server's welcome, length field included.
    public static let agentFrameSize = 48

    /// The largest frame the built-in server reads on a run's connections: a message of `payload` bytes, and in a run
    /// that takes agents their control frames too (an agent's longer reports come in pieces of this size).
    public static func serverFrameLimit(payload: Int, takesAgents: Bool) -> Int {
        max(payload, minimumMessageSize, takesAgents ? agentFrameSize : 0)
    }
    /// Size of a clock probe, reply or report, length field included.
    public static let clockFrameSize = 32
    /// The largest client spec (kind 12) the server sends an agent after its welcome, length field included: room for
    /// a `--clients-file` of up to ``ClientIdentities/maximumFileSize``.
    public static let clientSpecMaximumSize = 16 << 20
    /// Size of the largest client report, length field included.
    public static let clientReportMaximumSize = ClientReport.headSize + ClientReport.maximumTextSize
    /// Size of the smallest data or echo frame (no padding), length field included.
    public static let minimumMessageSize = 40
    /// The largest frame the harness ever sends or accepts (16 MiB), whatever a run configures.
    public static let maximumFrameSize = 16 << 20
}

/// What a frame carries, from its kind byte.
public enum FrameKind: UInt8, Sendable {
    /// A client introduces itself: protocol version, client id and the run's token. Always its first frame.
    case hello = 1
    /// A timestamped message from the server to a client.
    case data = 2
    /// A client's echo of a data frame, with its receive time filled in.
    case echo = 3
    /// A client saying it is alive, every `--heartbeat`; never a latency sample.
    case heartbeat = 4
    /// An agent (`bench clients`) asks `bench serve` for client ids: its first frame on its control connection.
    case agentHello = 5
    /// The server's answer to an agent: the ids it got and the run's settings its clients need.
    case agentWelcome = 6
    /// An agent asks the server's clock (NTP-style: its send time t1).
    case clockProbe = 7
    /// The server's answer: t1, and its own receive (t2) and send (t3) times.
    case clockReply = 8
    /// An agent tells the server the offset it found between their clocks and its error bound.
    case clockReport = 9
    /// The server ends the run on this connection: the close that follows is deliberate, and a client that would
    /// reconnect after a drop (`--reconnect`) does not.
    case goodbye = 10
    // 11 was an agent's connect times (version 6 and before): kind 13 carries them now.
    /// The server tells a welcomed agent what its clients need beyond the welcome's numbers (transport, WebSocket
    /// path, the certificate to pin): fields of a tag, a length and bytes, up to
    /// ``WireFormat/clientSpecMaximumSize``.
    case clientSpec = 12
    /// A thread of a run's clients, of any role, tells the run what is not a message received (``ClientReport``):
    /// subscribed (connected), closed, the server's error, a note, its load, its tally; from ``ClientReport/headSize``
    /// to ``WireFormat/clientReportMaximumSize`` bytes.
    case clientReport = 13
    /// A roundtrip target run's client tells the measuring thread what became of a message it was ordered to send
    /// (``SendReport``): written, its transmit stamp, or not written; ``SendReport/size`` bytes.
    case sendReport = 14
    /// A chat member's client tells the measuring thread it read another member's message: an echo frame's layout,
    /// with the sender's id where a data frame's send time goes (``Frame/deliverySender``).
    case delivery = 15
    /// A target run's client read what it waits for (``ReportWriter``): in fanout a broadcast, in roundtrip its own
    /// message back, in chat its own copy of what it sent; an echo frame's layout, with the read's times. An `echo` is
    /// only ever a built-in client's answer to the built-in server.
    case read = 16
    /// The measuring thread orders a share of a target run's clients to close every connection now
    /// (`--drop-connections-at`), as a network that drops them would: each comes back with `--reconnect`. A
    /// heartbeat's layout and size.
    case dropConnections = 17
    // 18 was an agent's connect phases (version 6): kind 13 carries them now.
}

extension FrameKind {
    /// The kind's name with its article, for messages: "a hello", "an echo".
    public var withArticle: String {
        switch self {
        case .echo: return "an echo"
        case .agentHello: return "an agent hello"
        case .agentWelcome: return "an agent welcome"
        case .clockProbe: return "a clock probe"
        case .clockReply: return "a clock reply"
        case .clockReport: return "a clock report"
        case .clientSpec: return "a client spec"
        case .clientReport: return "a client report"
        case .sendReport: return "a send report"
        case .delivery: return "a delivery"
        case .read: return "a read report"
        case .dropConnections: return "a drop-connections order"
        default: return "a \(self)"
        }
    }
}
