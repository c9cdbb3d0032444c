import Glibc

/// How busy the whole machine was, from `/proc/stat`, against the CPU time of the run's own processes (this one, its
/// reaped children, and every living descendant: client and server processes) and of the server's under test (found
/// by its port, ``ProcessTable/listening(on:)``): how a run tells its own load, the server's and other work on the
/// machine apart.
public struct MachineLoad: Sendable {
    /// Clock ticks since boot, over every CPU: all, those processes used (user, nice, system) and those a hypervisor
    /// took (steal). The kernel's interrupt work (irq, softirq) is no process's: on loopback most of it is the run's
    /// own traffic, and it is counted as nobody's rather than as other work.
    let total: UInt64
    let busy: UInt64
    let steal: UInt64
    /// The CPUs `/proc/stat` lists.
    let cpus: Int
    /// The run's own processes' user and system ticks (the server's excluded, where it is one of them).
    let harness: UInt64
    /// The server's processes' ticks; nil when none is known.
    let server: UInt64?

    /// The counters now, with `server`'s processes (and their descendants) as the server's; nil where `/proc` cannot
    /// be read.
    public static func now(server: Set<Int32> = []) -> MachineLoad? {
        guard let stat = try? Posix.readFile("/proc/stat", limit: 1 << 20) else { return nil }
        let lines = String(decoding: stat, as: UTF8.self).split(separator: "\n")
        guard let line = lines.first, line.hasPrefix("cpu ") else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard ticks.count >= 8 else { return nil }
        let cpus = max(1, lines.dropFirst().prefix { $0.hasPrefix("cpu") }.count)
        let table = ProcessTable.now()
        let own = getpid()
        guard table.entries[own] != nil else { return nil }  // /proc without this process: nothing to tell apart
        let servers = server.isEmpty ? [] : table.family(of: server)
        let family = table.family(of: [own]).subtracting(servers)
        // The living family's ticks, and this process's ended children's (reaped: they left the table).
        return MachineLoad(
            total: ticks.prefix(8).reduce(0, +),
            // user nice system idle iowait irq softirq steal: processes' time is the first three; steal is apart.
            busy: ticks[0] + ticks[1] + ticks[2], steal: ticks[7], cpus: cpus,
            harness: table.ticks(of: family) + table.reapedChildrenTicks(of: own),
            server: server.isEmpty ? nil : table.ticks(of: servers))
    }

    /// What the machine did between `start` and this reading; nil when no time passed.
    public func share(since start: MachineLoad) -> MachineShare? {
        guard total > start.total else { return nil }
        // Ticks over all CPUs → CPUs' worth: one CPU busy the whole time is 1.
        let perCPU = Double(total - start.total) / Double(cpus)
        let busyTicks = busy &- start.busy, harnessTicks = harness &- start.harness
        let serverTicks = server.map { now in start.server.map { now &- $0 } ?? 0 }
        let ours = harnessTicks &+ (serverTicks ?? 0)
        let others = busyTicks > ours ? busyTicks - ours : 0
        return MachineShare(
            othersCPU: Double(others) / perCPU, serverCPU: serverTicks.map { Double($0) / perCPU },
            stealPercent: 100 * Double(steal &- start.steal) / Double(total - start.total), cpus: cpus)
    }
}

/// What the machine's CPUs did during a run, in CPUs' worth (1: one CPU busy the whole time).
public struct MachineShare: Sendable, Equatable {
    /// Other processes' work: neither the run's own processes nor the server's.
    public let othersCPU: Double
    /// The server's processes', where they were found on this machine; nil otherwise.
    public let serverCPU: Double?
    /// The share of all CPUs' time a hypervisor took (steal), percent.
    public let stealPercent: Double
    /// The CPUs of the machine.
    public let cpus: Int

    public init(othersCPU: Double, serverCPU: Double?, stealPercent: Double, cpus: Int) {
        (self.othersCPU, self.serverCPU, self.stealPercent, self.cpus) = (othersCPU, serverCPU, stealPercent, cpus)
    }

    /// Other work that takes a CPU from a run this much (a quarter of one) disturbs it, as does a hypervisor that
    /// takes a tenth of the machine.
    public static let disturbingCPU = 0.25
    public static let disturbingStealPercent = 10.0

    /// True when other work (or a hypervisor) took enough of the machine to disturb a run.
    public var isDisturbed: Bool {
        othersCPU >= Self.disturbingCPU || stealPercent >= Self.disturbingStealPercent
    }

    /// `other processes used 93% of a CPU` (and the steal, where there was any), for the terminal and the reports.
    public var othersText: String {
        "other processes used \(Int((othersCPU * 100).rounded()))% of a CPU"
            + (stealPercent >= 1 ? ", and the hypervisor took \(Int(stealPercent.rounded()))% of the machine (steal)" : "")
    }
}
