import CBenchLinux
import Glibc

/// A set of CPUs numbered 0 to 63, written like `0-3,6`.
public struct CPUSet: Sendable, Equatable, CustomStringConvertible {
    /// Bit `n` set: CPU `n` is in the set.
    public private(set) var mask: UInt64

    /// A set from a bit mask.
    public init(mask: UInt64 = 0) {
        self.mask = mask
    }

    /// Adds a CPU; CPUs outside 0...63 are ignored.
    @inline(__always)
    public mutating func insert(_ cpu: Int) {
        if cpu >= 0 && cpu < 64 { mask |= 1 << UInt64(cpu) }
    }

    public var isEmpty: Bool { mask == 0 }

    /// The CPUs in ascending order.
    public var cpus: [Int] { (0..<64).filter { mask & (1 << UInt64($0)) != 0 } }

    /// Ranges of consecutive CPUs joined by commas, e.g. `0-3,6`; empty for an empty set.
    public var description: String {
        var parts: [String] = []
        var remaining = cpus[...]
        while let first = remaining.first {
            var last = first
            remaining = remaining.dropFirst()
            while remaining.first == last + 1 {
                last += 1
                remaining = remaining.dropFirst()
            }
            parts.append(first == last ? "\(first)" : "\(first)-\(last)")
        }
        return parts.joined(separator: ",")
    }
}

/// Where threads run: pinning, the allowed set, the CPU of the moment.
public enum CPUPlacement {
    /// CPUs online on this machine.
    public static var onlineCount: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Restricts the calling thread to one CPU.
    public static func pinCurrentThread(to cpu: Int) throws(SystemError) {
        let status = CBench_pinCurrentThread(Int32(cpu))
        if status != 0 { throw SystemError("sched_setaffinity(cpu \(cpu))", errno: status) }
    }

    /// The CPUs the calling thread is allowed to run on.
    public static func allowedCPUs() -> CPUSet {
        CPUSet(mask: CBench_currentAffinityMask())
    }

    /// The CPU the calling thread runs on at this instant (a vDSO call, no system call).
    @inline(__always)
    public static func currentCPU() -> Int {
        Int(CBench_currentCPU())
    }

    /// Lowers the calling thread's timer slack so its timed waits end when asked, not up to 50 µs later.
    public static func minimizeTimerSlack() {
        _ = CBench_setTimerSlack(1)
    }
}
