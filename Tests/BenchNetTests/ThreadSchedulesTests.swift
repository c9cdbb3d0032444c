import BenchNet
import Glibc
import Synchronization
import Testing

/// The scheduler's account of this process's threads: three threads that each want a CPU, held to one CPU, wait for
/// it in turn, each shows its wait under its own name, and the longest wait found is at least each of theirs.
@Suite struct ThreadSchedulesTests {
    final class Gate: Sendable {
        let spun = Atomic<Int>(0)
        let open = Atomic<Bool>(false)
    }

    @Test func threadsHeldToOneCPUWaitForItUnderTheirNames() throws {
        let before = ThreadSchedules.now()
        try #require(!before.threads.isEmpty, "/proc/self/task reads")
        #expect(before.threads.values.contains { $0.running > 0 })
        let cpu = try #require(CPUPlacement.allowedCPUs().cpus.first)
        let gate = Gate()
        let spinners = try (0..<3).map { index in
            try NativeThread.spawn(name: "test-spin-\(index)") { [gate] in
                try? CPUPlacement.pinCurrentThread(to: cpu)
                let end = MonotonicClock.now() + 60_000_000  // 60 ms wanting the CPU, which two others want too
                while MonotonicClock.now() < end {}
                gate.spun.add(1, ordering: .releasing)
                while !gate.open.load(ordering: .acquiring) { usleep(1_000) }  // alive until the snapshot is taken
            }
        }
        // A bound only a hang reaches: 60 s.
        let deadline = MonotonicClock.now() + 60_000_000_000
        while gate.spun.load(ordering: .acquiring) < 3 && MonotonicClock.now() < deadline { usleep(1_000) }
        let after = ThreadSchedules.now()
        gate.open.store(true, ordering: .releasing)
        for spinner in spinners { spinner.join() }

        let waits = after.threads.filter { $0.value.name.hasPrefix("test-spin-") }.map { $0.value.waiting }
        #expect(waits.count == 3, "each spinner by its name: \(after.threads.values.map(\.name))")
        #expect(waits.allSatisfy { $0 > 0 }, "each waited for the CPU the others held: \(waits)")
        let longest = try #require(after.longestWait(since: before))
        #expect(longest.waiting >= waits.max() ?? 0, "\(longest) \(waits)")
        #expect(before.longestWait(since: before) == nil, "nothing waited between a snapshot and itself")
    }
}
