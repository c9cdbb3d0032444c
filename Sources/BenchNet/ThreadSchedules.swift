/// The scheduler's account of every thread of this process (`/proc/self/task/*/schedstat`): how long each has run on a
/// CPU and waited on a run queue for one, with its name. Two snapshots around a run tell which of the harness's
/// threads waited longest for a CPU meanwhile: a thread starved by other work on the machine shows here, one waiting
/// for a peer or a timer does not.
public struct ThreadSchedules: Sendable {
    /// One thread's account.
    public struct Thread: Sendable, Equatable {
        /// Its name (`/proc/self/task/TID/comm`: `bench-clients`, `bench-subs`, …).
        public var name: String
        /// Nanoseconds on a CPU, and waiting on a run queue, since it began.
        public var running: UInt64
        public var waiting: UInt64
    }

    /// By thread id; empty where /proc cannot be read.
    public let threads: [Int32: Thread]

    public init(threads: [Int32: Thread]) {
        self.threads = threads
    }

    /// Every thread of this process now (a thread that ends while it is read is left out).
    public static func now() -> ThreadSchedules {
        var threads: [Int32: Thread] = [:]
        for entry in (try? Posix.directoryEntries("/proc/self/task")) ?? [] {
            guard let id = Int32(entry),
                let schedule = try? Posix.readFile("/proc/self/task/\(entry)/schedstat", limit: 256),
                let comm = try? Posix.readFile("/proc/self/task/\(entry)/comm", limit: 64)
            else { continue }
            let fields = String(decoding: schedule, as: UTF8.self).split(separator: " ")
            guard fields.count >= 2, let running = UInt64(fields[0]), let waiting = UInt64(fields[1]) else { continue }
            let name = String(decoding: comm.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
            threads[id] = Thread(name: name, running: running, waiting: waiting)
        }
        return ThreadSchedules(threads: threads)
    }

    /// The thread that waited longest for a CPU since `earlier` (threads in both snapshots; one begun since counts from
    /// its start): its name and how long it waited (ns). Nil when no thread waited at all.
    public func longestWait(since earlier: ThreadSchedules) -> (name: String, waiting: UInt64)? {
        var longest: (name: String, waiting: UInt64)?
        for (id, thread) in threads {
            let before = earlier.threads[id].map { $0.name == thread.name ? $0.waiting : 0 } ?? 0
            let waited = thread.waiting &- min(before, thread.waiting)
            if waited > 0 && waited > (longest?.waiting ?? 0) { longest = (thread.name, waited) }
        }
        return longest
    }
}
