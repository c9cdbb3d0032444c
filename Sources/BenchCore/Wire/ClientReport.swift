/// What a thread of a run's clients, of any role, tells the run besides the messages they received: a client is
/// connected (subscribed), its connection closed, the server said something, it received something that is not a
/// measurement, the thread's load. A target's clients (subscribers, round-trip clients, chat members) send it to the
/// run's measuring thread, with their messages (each a read report or a delivery frame: sequence, client, and the
/// read's times); the built-in server's clients, whose messages the server measures itself, send only these: in this
/// process kept until the threads end, from an agent (`bench clients`, a `--client-procs` child) on its control
/// connection.
///
///     length | kind=13 | what:u8 | reserved:u16 | client:u32 | time:u64 | text (UTF-8, at most 512 bytes)
///
/// The measuring thread checks every field, as it would a peer's.
public struct ClientReport: Equatable, Sendable {
    /// How a note on a subscriber's stuck handshake begins (its step and the last message): a setup that times out
    /// names it.
    public static let handshakeNotePrefix = "handshake: "

    public enum What: UInt8, Sendable {
        /// The subscription is confirmed; `time` is its connection's connect time (start of the connect to the end of
        /// the handshakes), `text` its ``ConnectPhases``.
        case subscribed = 1
        /// Its connection closed at `time`, for the reason in `text`.
        case closed = 2
        /// The server reported an error (`text`) at `time`; before the run began, that is a refusal.
        case serverError = 3
        /// Something it received is not a measurement (`text`: what), at `time`.
        case note = 4
        /// A client thread's CPU time, in parts per million of the time since its clients were all connected (`time`;
        /// `client`: its first id): sent every second, so that the run knows when its client threads, here, in a child
        /// or in an agent, had no time to spare.
        case load = 5
        /// An agent's own link (`bench clients --link`; `client`: its first id): its clients sit behind it, and the run
        /// reports them as a group of their own. Sent before its clock is measured, in pieces that fit the run's
        /// frames: `text` a piece, `time` the whole link's length in bytes.
        case link = 6
        /// `--reconnect`: its connection is back and ready again after a drop; `time` is when it became ready, `text`
        /// the ``ConnectPhases`` of the connect that brought it back.
        case returned = 7
        /// `--reconnect`: it used its tries and stays away (`text`: how many).
        case gaveUp = 8
        /// What the link a child's or an agent's clients sat behind (`--link`) did to them (`text`: a NAT that forgot
        /// connections, a blackout), at `time`; `client`: its first id. Sent once the run is over, its clients and its
        /// link ended: the run reports it on the `link` side, as it does its own link's.
        case linkEvent = 9
        /// How late that link let its bytes out behind its model (`text`: ``LinkLateness/text``); `client`: its first
        /// id. Sent with its events, after them; a link that carried nothing sends none.
        case linkLateness = 10

        /// What a child's or an agent's link sends once the run is over: the only reports taken then.
        public var isLinksAccount: Bool { self == .linkEvent || self == .linkLateness }
    }

    /// The `client` of a report that is no one client's (a thread's note).
    public static let noClient = UInt32.max

    public var what: What
    public var client: UInt32
    public var time: UInt64
    public var text: String

    /// Size of the frame without text, length field included.
    public static let headSize = 20
    /// The longest text a report carries; a longer one is cut (at a character's boundary).
    public static let maximumTextSize = 512

    public init(_ what: What, client: UInt32, time: UInt64, text: String = "") {
        self.what = what
        self.client = client
        self.time = time
        self.text = text
    }

    /// Reads a report frame (the decoder checked its kind and that its size is within bounds); nil when `what` is
    /// unknown or the text is not UTF-8.
    public init?(_ frame: Frame) {
        guard let what = What(rawValue: frame.bytes[5]) else { return nil }
        var text = ""  // most reports (load) have none: no string is made for them
        if frame.bytes.count > Self.headSize {
            guard let read = String(validating: frame.bytes[Self.headSize...], as: UTF8.self) else { return nil }
            text = read
        }
        self.init(what, client: frame.load(UInt32.self, at: 8), time: frame.load(UInt64.self, at: 12), text: text)
    }

    /// The text as it goes on the wire: at most ``maximumTextSize`` bytes, cut at a character's boundary.
    private var wireText: Substring.UTF8View {
        var end = text.startIndex
        var bytes = 0
        for index in text.indices {
            let next = text.index(after: index)
            bytes += text.utf8.distance(from: index, to: next)
            guard bytes <= Self.maximumTextSize else { break }
            end = next
        }
        return text[..<end].utf8
    }

    /// Writes the frame at the start of `buffer` (at least ``headSize`` + ``maximumTextSize`` bytes) and returns
    /// its size.
    public func encode(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let body = wireText
        let size = Self.headSize + body.count
        let frame = Frame.encodeFixed(.clientReport, size: size, into: buffer)
        frame.bytes[5] = what.rawValue
        frame.store(client, at: 8)
        frame.store(time, at: 12)
        for (offset, byte) in body.enumerated() { frame.bytes[Self.headSize + offset] = byte }
        return size
    }
}

extension ClientReport {
    /// The reports a ``FrameKind/clientReport`` stream of this process holds (a thread's, written to memory), in order;
    /// it ends at the first frame that is not one.
    public static func all(in stream: [UInt8]) -> [ClientReport] {
        var reports: [ClientReport] = []
        var bytes = stream
        var decoder = FrameDecoder(maximumFrameSize: WireFormat.clientReportMaximumSize)
        _ = try? bytes.withUnsafeMutableBytes { buffer in
            try decoder.decode(buffer) { frame in
                guard frame.kind == .clientReport, let report = ClientReport(frame) else { return false }
                reports.append(report)
                return true
            }
        }
        return reports
    }
}
