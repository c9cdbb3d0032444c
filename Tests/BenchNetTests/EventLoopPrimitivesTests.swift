import Glibc
import Testing

@testable import BenchNet

@Suite(.timeLimit(.minutes(10))) struct EventLoopPrimitivesTests {
    @Test func aNotifierRungFromAnotherThreadWakesTheLoop() throws {
        let epoll = try Epoll()
        let notifier = try EventNotifier()
        try epoll.add(notifier.descriptor, interest: .readable, token: 42)
        let ringer = try NativeThread.spawn(name: "ringer") { () -> Int in
            usleep(10_000)
            notifier.notify()
            return 1
        }
        #expect(try waitForEvents(epoll) == 1)
        #expect(epoll.event(at: 0).token == 42)
        notifier.drain()
        #expect(try epoll.wait(timeoutMilliseconds: 0) == 0, "drained: no longer readable")
        #expect(ringer.join() == 1)
    }

    @Test func aTimerFiresNoEarlierThanItsDeadline() throws {
        let epoll = try Epoll()
        let timer = try MonotonicTimer()
        try epoll.add(timer.descriptor, interest: .readable, token: 5)
        let deadline = MonotonicClock.now() + 20_000_000
        try timer.arm(at: deadline)
        #expect(try waitForEvents(epoll) == 1)
        #expect(epoll.event(at: 0).token == 5)
        #expect(MonotonicClock.now() >= deadline)
        timer.drain()
        #expect(try epoll.wait(timeoutMilliseconds: 0) == 0, "one shot: it does not fire again")
    }

    /// Waits until `epoll` has events (a wait a signal interrupts returns 0 and is waited again), at most 10 s.
    private func waitForEvents(_ epoll: Epoll) throws -> Int {
        let giveUp = MonotonicClock.now() + 10_000_000_000
        while MonotonicClock.now() < giveUp {
            let count = try epoll.wait(timeoutMilliseconds: 10_000)
            if count > 0 { return count }
        }
        return 0
    }

    @Test func theMonotonicClockNeverGoesBack() {
        var last = MonotonicClock.now()
        for _ in 0..<100_000 {
            let now = MonotonicClock.now()
            #expect(now >= last)
            last = now
        }
    }

    @Test func aThreadHandsItsResultToJoin() throws {
        let thread = try NativeThread.spawn(name: "adder") { (1...100).reduce(0, +) }
        #expect(thread.join() == 5050)
    }

    @Test(arguments: [
        ([], ""), ([0], "0"), ([0, 1, 2, 3], "0-3"), ([0, 1, 3, 6], "0-1,3,6"), ([63], "63"),
        ([63, 64, 65, 200], "63-65,200"), ([4095, 4094], "4094-4095"),
    ])
    func cpuSetsOfAnySizePrintAsRanges(cpus: [Int], expected: String) {
        #expect(CPUSet(cpus).description == expected)
        #expect(CPUSet(cpus).cpus == cpus.sorted())
        #expect(cpus.allSatisfy { CPUSet(cpus).contains($0) })
    }

    @Test func cpuSetsCompareByTheirCPUsAndIgnoreNumbersNoCPUHas() {
        var set = CPUSet([1])
        set.insert(-1)
        set.insert(CPUSet.largestCPU + 1)
        #expect(set == CPUSet([1]))
        #expect(!set.contains(100) && !set.contains(-1))
        #expect(CPUSet([70]) != CPUSet([6]))
    }

    @Test func aPinnedThreadRunsOnlyOnItsCPU() throws {
        let cpu = CPUPlacement.allowedCPUs().cpus.last!
        let seen = try NativeThread.spawn(name: "pinned") { () -> (CPUSet, Int) in
            try? CPUPlacement.pinCurrentThread(to: cpu)
            return (CPUPlacement.allowedCPUs(), CPUPlacement.currentCPU())
        }.join()
        #expect(seen.0.cpus == [cpu])
        #expect(seen.1 == cpu)
    }

    @Test func theDescriptorLimitIsRaisedToTheHardLimit() {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #expect(DescriptorLimit.raiseToHardLimit() == Int(limit.rlim_max))
    }
}
