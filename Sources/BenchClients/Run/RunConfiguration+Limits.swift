import BenchCore
import BenchProtocols

/// A setting of a ``RunConfiguration`` outside what a run can do: the option it comes from and why.
public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The command-line option the setting comes from, without dashes (`interval`).
    public let option: String
    /// Why it cannot be run, naming the limit: "at most 24h".
    public let reason: String

    public init(option: String, reason: String) {
        self.option = option
        self.reason = reason
    }

    public var description: String { "--\(option): \(reason)" }
}

extension RunConfiguration {
    /// The bounds of every setting. Within them no arithmetic on the settings (deadlines, the timetable, 3 ×
    /// heartbeat, memory estimates) can overflow 64 bits.
    public enum Limits {
        /// Simulated clients.
        public static let clients = 1...1_000_000
        /// Measured messages, and warmup messages: broadcasts in fanout, messages per client in roundtrip.
        public static let messages = 1...100_000_000
        public static let warmup = 0...100_000_000
        /// The longest duration any option takes: a day.
        public static let longestDuration: UInt64 = 86_400 * 1_000_000_000
        /// The longest timetable: (warmup + messages) × interval.
        public static let longestTimetable: UInt64 = 366 * 86_400 * 1_000_000_000
        /// The longest `--duration`: a week.
        public static let longestRun: UInt64 = 7 * 86_400 * 1_000_000_000
        /// The shortest `--report-every` but 0: a housekeeping tick (50 ms) ends intervals, and each interval's end
        /// syncs the streamed files to disk; shorter intervals only stall the run behind its writer.
        public static let shortestReportInterval: UInt64 = 50_000_000
        /// The largest `--exact-budget`: 1 TiB.
        public static let largestExactBudget = 1 << 40
        /// The largest write queue of one connection.
        public static let largestQueue = 1 << 30
        /// Threads for the clients of one process, and for the server's writes.
        public static let clientThreads = 64
    }

    /// In a `--duration` run, the default warmup bounded to a tenth of the duration (a warmup of 10 sends every second
    /// would take most of a 12-second run); a warmup the user gave is checked by ``validate()`` instead.
    public mutating func boundDefaultWarmup() {
        guard let duration, interval > 0 else { return }
        warmup = Swift.min(warmup, Int(Swift.min(duration / 10 / interval, UInt64(Int.max))))
    }

    /// Checks every setting against ``Limits`` and against each other.
    ///
    /// - Throws: ``ConfigurationError`` naming the first setting that cannot be run and the limit it breaks.
    public func validate() throws(ConfigurationError) {
        func check(_ condition: Bool, _ option: String, _ reason: @autoclosure () -> String) throws(ConfigurationError) {
            if !condition { throw ConfigurationError(option: option, reason: reason()) }
        }
        let countOption = scenario == .fanout ? "messages" : "count"
        try check(chatRooms == nil || scenario == .chat, "rooms", "is for chat")
        if scenario == .chat {
            guard let chatRooms else { throw ConfigurationError(option: "rooms", reason: "a chat run needs rooms") }
            if let refusal = chatRooms.refusal(clients: clients) { throw ConfigurationError(option: "rooms", reason: refusal) }
            try check(interval > 0, "rate", "must be more than 0: every member sends on its own timetable")
        }
        try check(Limits.clients.contains(clients), "clients", "expected \(Limits.clients.lowerBound) to \(Limits.clients.upperBound)")
        try check(Limits.messages.contains(messages), countOption, "expected \(Limits.messages.lowerBound) to \(Limits.messages.upperBound)")
        try check(Limits.warmup.contains(warmup), "warmup", "expected \(Limits.warmup.lowerBound) to \(Limits.warmup.upperBound)")
        let longest = "\(DurationText.format(Limits.longestDuration)) (a day)"
        for (option, value, mayBeZero) in [
            ("interval", interval, true), ("under", under, false), ("timeout", timeout, false),
            ("heartbeat", heartbeat, true),
        ] {
            try check(mayBeZero || value > 0, option, "must be more than 0")
            try check(value <= Limits.longestDuration, option, "must be at most \(longest)")
        }
        try check(deadAfter <= 3 * Limits.longestDuration, "dead-after", "must be at most \(DurationText.format(3 * Limits.longestDuration)) (3 days)")
        try check(setupTimeout > 0 && setupTimeout <= Limits.longestDuration, "setup-timeout", "must be from 1ns to \(longest)")
        if let identities = target?.identities, let refusal = identities.refusal(clients: clients) {
            throw ConfigurationError(option: "clients-file", reason: refusal)
        }
        if let connectInterval {
            let ramp = UInt64(clients).multipliedReportingOverflow(by: connectInterval)
            try check(
                connectInterval >= 1_000 && !ramp.overflow && ramp.partialValue <= Limits.longestDuration, "connect-rate",
                "must be at most 1000000/s, and connect the \(clients) clients within \(longest)")
        }
        if let duration {
            try check(
                duration > 0 && duration <= Limits.longestRun, "duration",
                "must be from 1ns to \(DurationText.format(Limits.longestRun)) (a week)")
        }
        if let duration, interval > 0 {
            let (warmupTime, overflow) = UInt64(warmup).multipliedReportingOverflow(by: interval)
            try check(
                !overflow && warmupTime <= duration / 2, "warmup",
                "\(warmup) warmup sends every \(DurationText.format(interval)) take \(overflow ? "longer than" : DurationText.format(warmupTime)) "
                    + "of --duration \(DurationText.format(duration)), leaving (nearly) nothing to measure: at most half "
                    + "of it may be warmup (lower --warmup, 0 for none, or lengthen --duration)")
        }
        try check(reportEvery <= Limits.longestDuration, "report-every", "must be at most \(longest)")
        if offlineQueue {
            try check(
                scenario == .roundtrip && interval > 0 && expectsReconnects, "offline-queue",
                "is for open-loop roundtrip (--interval above 0) whose clients come back (--reconnect or "
                    + "--drop-connections-at): in fanout a message missed is lost, in closed loop none falls due while away")
            try check(
                target == nil, "offline-queue",
                "holds the built-in server's messages for its clients while they are away; a user's server (--target) "
                    + "keeps its own queue, and what its clients miss meanwhile is lost")
        }
        try check(
            reportEvery == 0 || reportEvery >= Limits.shortestReportInterval, "report-every",
            "must be 0 or at least \(DurationText.format(Limits.shortestReportInterval))")
        try check(
            exactBudget >= 0 && exactBudget <= Limits.largestExactBudget, "exact-budget",
            "expected 0B to \(ByteSizeText.format(Limits.largestExactBudget))")
        let (timetable, overflow) = UInt64(duration == nil ? sequencesPerClient : 0).multipliedReportingOverflow(by: interval)
        try check(
            !overflow && timetable <= Limits.longestTimetable, "interval",
            "\(sequencesPerClient) sends (--\(countOption) plus --warmup) every \(DurationText.format(interval)) "
                + "would take longer than the limit of \(Limits.longestTimetable / Limits.longestDuration) days")
        try check(
            payload >= WireFormat.minimumMessageSize && payload <= WireFormat.maximumFrameSize, "payload",
            "expected \(WireFormat.minimumMessageSize)B to \(ByteSizeText.format(WireFormat.maximumFrameSize))")
        try check(
            maximumQueuedBytes >= payload && maximumQueuedBytes <= Limits.largestQueue, "max-queue",
            "must hold one message (\(ByteSizeText.format(payload))) and be at most \(ByteSizeText.format(Limits.largestQueue))")
        try check(
            clientThreads >= 1 && clientThreads <= min(Limits.clientThreads, max(1, localClients.count)), "client-threads",
            "expected 1 to \(min(Limits.clientThreads, max(1, localClients.count))) (at most one per client)")
        try check(
            serverThreads >= 1 && serverThreads <= min(Limits.clientThreads, clients), "server-threads",
            "expected 1 to \(min(Limits.clientThreads, clients)) (at most one per client)")
        try check(serverThreads == 1 || scenario == .fanout, "server-threads", "splits a broadcast: fanout only")
        try check(
            webSocketPath.hasPrefix("/") && webSocketPath.utf8.count <= 1024
                && webSocketPath.utf8.allSatisfy { (0x21...0x7E).contains($0) },
            "ws-path", "expected a path from /, of at most 1024 printable ASCII characters without blanks")
        if let settings = target {
            let (target, framing) = (settings.url, settings.framing)
            let framed = target.scheme == .tcp
            let overhead = framed ? framing.headerSize + framing.trailerSize : 0
            try check(
                payload - overhead >= Marker.size && (!framed || payload - overhead <= framing.maximumBodySize),
                "payload",
                "a message to \(target.scheme.rawValue)://\(framed ? " with --framing \(framing.rawValue)" : "") holds its "
                    + "\(Marker.size)-byte marker\(overhead > 0 ? " and \(overhead) bytes of framing" : ""): at least "
                    + "\(Marker.size + overhead)B\(framed && framing.maximumBodySize < 1 << 20 ? ", at most \(framing.maximumBodySize + overhead)B" : "")")
            try check(serverThreads == 1, "server-threads", "a --target run has no server of its own")
            let largestOverHTTP2 = HTTP2Tunnel.maximumData - WebSocketFrameHeader.maximumSize
            try check(
                !settings.overHTTP2 || !target.scheme.transport.isWebSocket || payload <= largestOverHTTP2, "payload",
                "a WebSocket message over HTTP/2 (--http2) goes in one DATA frame: at most \(largestOverHTTP2)B")
        }
        if let range = localClientRange {
            try check(range.lowerBound >= 0 && range.upperBound <= clients, "clients", "local clients \(range) outside 0..<\(clients)")
        }
        for cpu in [serverCPU, clientCPU].compactMap({ $0 }) {
            try check(cpu >= 0, "pin", "CPU \(cpu) is not a CPU number")
        }
    }
}
