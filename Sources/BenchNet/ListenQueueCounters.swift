/// The kernel's count of connections a listening socket had no room for (`/proc/net/netstat`'s `TcpExt` lines), for
/// every listener of this network namespace: `ListenOverflows`, SYNs and handshakes dropped while an accept queue was
/// full.
public struct ListenQueueCounters: Sendable, Equatable {
    public let overflows: UInt64

    public init(overflows: UInt64) {
        self.overflows = overflows
    }

    /// The counters now; nil where `/proc/net/netstat` cannot be read or holds no such counters.
    public static func read() -> ListenQueueCounters? {
        guard let bytes = try? Posix.readFile("/proc/net/netstat", limit: 1 << 16) else { return nil }
        return parse(String(decoding: bytes, as: UTF8.self))
    }

    /// The counters of a `/proc/net/netstat` text: its `TcpExt:` line of names, and the line of values after it.
    public static func parse(_ text: String) -> ListenQueueCounters? {
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("TcpExt:") }
        guard lines.count >= 2 else { return nil }
        let names = lines[0].split(separator: " ").dropFirst()
        let values = lines[1].split(separator: " ").dropFirst()
        guard names.count == values.count else { return nil }
        let counters = Dictionary(zip(names, values.map { UInt64($0) }), uniquingKeysWith: { first, _ in first })
        guard let overflows = counters["ListenOverflows"] ?? nil else { return nil }
        return ListenQueueCounters(overflows: overflows)
    }
}
