import CBenchLinux
import Glibc

/// A set of CPUs, of any number (machines with more than 64 are common), written like `0-3,6,70`.
public struct CPUSet: Sendable, Equatable, CustomStringConvertible {
    /// Bit `n % 64` of word `n / 64` set: CPU `n` is in the set. No trailing zero words, so equal sets are equal.
    private var words: [UInt64]

    /// The largest CPU number a set holds; Linux's own limit (CONFIG_NR_CPUS) is 8192.
    public static let largestCPU = (1 << 16) - 1

    /// An empty set.
    public init() {
        words = []
    }

    /// The set of `cpus`; numbers outside 0...``largestCPU`` are ignored.
    public init(_ cpus: some Sequence<Int>) {
        words = []
        for cpu in cpus { insert(cpu) }
    }

    /// Adds a CPU; numbers outside 0...``largestCPU`` are ignored. Allocates only when the set grows to a CPU
    /// above all it held.
    @inline(__always)
    public mutating func insert(_ cpu: Int) {
        guard cpu >= 0 && cpu <= Self.largestCPU else { return }
        let word = cpu >> 6
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word + 1 - words.count)) }
        words[word] |= 1 << UInt64(cpu & 63)
    }

    /// Adds every CPU of `other`.
    public mutating func formUnion(_ other: CPUSet) {
        if other.words.count > words.count { words.append(contentsOf: repeatElement(0, count: other.words.count - words.count)) }
        for (index, word) in other.words.enumerated() { words[index] |= word }
    }

    /// True when `cpu` is in the set.
    public func contains(_ cpu: Int) -> Bool {
        cpu >= 0 && cpu >> 6 < words.count && words[cpu >> 6] & (1 << UInt64(cpu & 63)) != 0
    }

    public var isEmpty: Bool { words.isEmpty }

    /// The CPUs in ascending order.
    public var cpus: [Int] {
        words.indices.flatMap { word in (0..<64).filter { words[word] & (1 << UInt64($0)) != 0 }.map { word * 64 + $0 } }
    }

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

    /// The CPUs the calling thread is allowed to run on (empty if the kernel would not say).
    public static func allowedCPUs() -> CPUSet {
        let wordCount = (CPUSet.largestCPU + 1) / 64
        var words = [UInt64](repeating: 0, count: wordCount)
        guard CBench_allowedCPUs(&words, Int32(wordCount)) == 0 else { return CPUSet() }
        return CPUSet(words.indices.flatMap { word in
            (0..<64).filter { words[word] & (1 << UInt64($0)) != 0 }.map { word * 64 + $0 }
        })
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
