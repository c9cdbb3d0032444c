/// How busy the whole machine was, from `/proc/stat`, against this process's own CPU time (its children's included,
/// once reaped), from `/proc/self/stat`: how a saturated harness tells its own load from other work on the machine.
public struct MachineLoad: Sendable {
    /// Clock ticks since boot, over every CPU: all, and those not idle (user, nice, system, irq, softirq, steal).
    let total: UInt64
    let busy: UInt64
    /// This process's user and system ticks, with those of its reaped children.
    let own: UInt64

    /// The counters now; nil where `/proc` cannot be read.
    public static func now() -> MachineLoad? {
        guard let stat = try? Posix.readFile("/proc/stat", limit: 1 << 20),
            let line = String(decoding: stat, as: UTF8.self).split(separator: "\n").first, line.hasPrefix("cpu "),
            let mine = try? Posix.readFile("/proc/self/stat", limit: 1 << 16)
        else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard ticks.count >= 8 else { return nil }
        // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
        // The fields after the command's closing parenthesis, from the state (field 3) on: utime is field 14.
        let text = String(decoding: mine, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14, let user = UInt64(fields[11]), let system = UInt64(fields[12]),
            let childUser = UInt64(fields[13]), let childSystem = UInt64(fields[14])
        else { return nil }
        return MachineLoad(
            total: ticks.prefix(8).reduce(0, +), busy: busy, own: user + system + childUser + childSystem)
    }

    /// The share of the machine's CPU time (percent of all its CPUs) that other processes used between `start` and
    /// this reading; nil when no time passed.
    public func othersPercent(since start: MachineLoad) -> Double? {
        guard total > start.total else { return nil }
        let busyTicks = busy &- start.busy, ownTicks = own &- start.own
        let others = busyTicks > ownTicks ? busyTicks - ownTicks : 0
        return min(100, 100 * Double(others) / Double(total - start.total))
    }
}
