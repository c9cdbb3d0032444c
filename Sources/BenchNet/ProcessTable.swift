import Glibc

/// The processes of this machine as `/proc` shows them at one moment: each one's parent and the CPU time it used, so
/// that a run can tell its own processes' CPU (this one and every descendant: client processes, server processes)
/// from the server's under test and from other work on the machine. Read outside any hot path: before a run's
/// processes start their work and after they have ended (``MachineLoad``).
public struct ProcessTable: Sendable {
    /// One process: its parent, its user and system time, and that of its children it reaped, in clock ticks.
    struct Entry: Sendable {
        let parent: Int32
        let ticks: UInt64
        let reapedChildrenTicks: UInt64
    }

    let entries: [Int32: Entry]

    /// Every process `/proc` lists now (an empty table where it cannot be read).
    public static func now() -> ProcessTable {
        var entries: [Int32: Entry] = [:]
        for name in (try? Posix.directoryEntries("/proc")) ?? [] {
            guard let pid = Int32(name), let bytes = try? Posix.readFile("/proc/\(name)/stat", limit: 4096),
                let stat = ProcessStat(String(decoding: bytes, as: UTF8.self))
            else { continue }
            entries[pid] = Entry(
                parent: stat.parent, ticks: stat.user + stat.system,
                reapedChildrenTicks: stat.childrenUser + stat.childrenSystem)
        }
        return ProcessTable(entries: entries)
    }

    /// `roots` and every process descended from one of them, among those listed.
    public func family(of roots: Set<Int32>) -> Set<Int32> {
        var children: [Int32: [Int32]] = [:]
        for (pid, entry) in entries { children[entry.parent, default: []].append(pid) }
        var found = roots.intersection(entries.keys)
        var waiting = Array(found)
        while let pid = waiting.popLast() {
            for child in children[pid] ?? [] where found.insert(child).inserted { waiting.append(child) }
        }
        return found
    }

    /// The CPU time (clock ticks) of the children `pid` reaped (0 where it is not listed): what its ended children used.
    public func reapedChildrenTicks(of pid: Int32) -> UInt64 {
        entries[pid]?.reapedChildrenTicks ?? 0
    }

    /// The CPU time (clock ticks) `pids` used, those still listed.
    public func ticks(of pids: Set<Int32>) -> UInt64 {
        pids.reduce(0) { $0 + (entries[$1]?.ticks ?? 0) }
    }

    /// The processes holding a TCP socket that listens on `port` (IPv4 or IPv6), from `/proc/net/tcp*` and each
    /// process's descriptors (this process's own are not read: a run's own server is not a target). Empty when none
    /// is seen, as for a server in another network namespace or another user's process.
    public static func listening(on port: UInt16) -> Set<Int32> {
        var inodes: Set<String> = []
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let bytes = try? Posix.readFile(file, limit: 64 << 20) else { continue }
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                guard fields.count > 9, fields[3] == "0A", let colon = fields[1].lastIndex(of: ":"),
                    UInt16(fields[1][fields[1].index(after: colon)...], radix: 16) == port
                else { continue }
                inodes.insert("socket:[\(fields[9])]")
            }
        }
        guard !inodes.isEmpty else { return [] }
        let own = getpid()
        var holders: Set<Int32> = []
        for name in (try? Posix.directoryEntries("/proc")) ?? [] {
            guard let pid = Int32(name), pid != own, let descriptors = try? Posix.directoryEntries("/proc/\(name)/fd")
            else { continue }
            if descriptors.contains(where: { Posix.readLink("/proc/\(name)/fd/\($0)").map(inodes.contains) ?? false }) {
                holders.insert(pid)
            }
        }
        return holders
    }
}

/// The fields of `/proc/PID/stat` a run reads: after the command's closing parenthesis (a command may hold spaces and
/// parentheses), the state is field 3, the parent field 4, user and system time fields 14 and 15, and the reaped
/// children's user and system time fields 16 and 17.
struct ProcessStat {
    let parent: Int32
    let user: UInt64
    let system: UInt64
    let childrenUser: UInt64
    let childrenSystem: UInt64

    init?(_ text: String) {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]), let user = UInt64(fields[11]),
            let system = UInt64(fields[12]), let childrenUser = UInt64(fields[13]), let childrenSystem = UInt64(fields[14])
        else { return nil }
        (self.parent, self.user, self.system) = (parent, user, system)
        (self.childrenUser, self.childrenSystem) = (childrenUser, childrenSystem)
    }
}
