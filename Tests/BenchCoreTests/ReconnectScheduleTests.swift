import BenchCore
import Testing

/// `--reconnect`'s one rule for every client engine: a drop after use starts the tries again, a failed try waits
/// longer, past the tries a client gives up, and only what is due is taken, at most as many as asked.
@Suite struct ReconnectScheduleTests {
    static let backoff = ReconnectBackoff(base: 100, maximum: 1_000, tries: 3)

    @Test func aDropAfterUseStartsTheTriesAgainAndAFailedTryWaitsLonger() throws {
        var schedule = ReconnectSchedule(Self.backoff, seed: 1, firstClient: 0, count: 2)
        var due: [Int] = []
        guard case .tryAgain(let first) = schedule.lost(1, afterUse: true, at: 1_000) else {
            Issue.record("a first drop is tried again")
            return
        }
        #expect((1_050...1_100).contains(first), "half the base and up to as much again")
        schedule.takeDue(at: first - 1, limit: 10, into: &due)
        #expect(due.isEmpty && schedule.earliest == first, "not before it is due")
        schedule.takeDue(at: first, limit: 10, into: &due)
        #expect(due == [1] && schedule.isEmpty)
        // That try failed: the next waits twice as long, then four times; the fourth try is past the three allowed.
        guard case .tryAgain(let second) = schedule.lost(1, afterUse: false, at: 2_000) else {
            Issue.record("a failed try is tried again")
            return
        }
        #expect((2_100...2_200).contains(second))
        schedule.takeDue(at: second, limit: 10, into: &due)
        guard case .tryAgain(let third) = schedule.lost(1, afterUse: false, at: 3_000) else {
            Issue.record("the third try is allowed")
            return
        }
        #expect((3_200...3_400).contains(third))
        schedule.takeDue(at: third, limit: 10, into: &due)
        #expect(schedule.lost(1, afterUse: false, at: 4_000) == .gaveUp(tries: 3))
        #expect(schedule.isEmpty && schedule.earliest == nil)
        // A connection that was used, dropped again: the tries start from the first.
        guard case .tryAgain(let again) = schedule.lost(1, afterUse: true, at: 5_000) else {
            Issue.record("a drop after use starts again")
            return
        }
        #expect((5_050...5_100).contains(again))
    }

    @Test func onlyWhatIsDueIsTakenAndNoMoreThanTheLimit() {
        var schedule = ReconnectSchedule(Self.backoff, seed: 7, firstClient: 100, count: 6)
        for place in 0..<6 { _ = schedule.lost(place, afterUse: true, at: 0) }
        var due: [Int] = []
        schedule.takeDue(at: 1_000, limit: 4, into: &due)
        #expect(due.count == 4 && Set(due).count == 4)
        schedule.takeDue(at: 1_000, limit: 0, into: &due)
        #expect(due.isEmpty, "a full window takes none")
        schedule.takeDue(at: 1_000, limit: 10, into: &due)
        #expect(due.count == 2 && schedule.isEmpty)
        schedule.cancelAll()
        #expect(schedule.isEmpty)
    }

    /// The jitter is the run's: the same seed and first client draw the same waits (the built-in server's clients drew
    /// these before the rule was shared).
    @Test func theJitterIsDrawnFromTheRunsSeedPerThread() {
        func waits(seed: UInt64, first: Int) -> [ReconnectSchedule.Decision] {
            var schedule = ReconnectSchedule(ReconnectBackoff(base: 1_000_000, maximum: 8_000_000, tries: 5), seed: seed, firstClient: first, count: 4)
            return (0..<4).map { schedule.lost($0, afterUse: true, at: 0) }
        }
        #expect(waits(seed: 3, first: 0) == waits(seed: 3, first: 0))
        #expect(waits(seed: 3, first: 0) != waits(seed: 3, first: 4))
        var random = SplitMix64(seed: 3, stream: 0x7265_636F_6E6E_6563)
        let expected = ReconnectBackoff(base: 1_000_000, maximum: 8_000_000, tries: 5).delay(attempt: 0, random: &random)
        #expect(waits(seed: 3, first: 0).first == .tryAgain(due: expected))
    }
}
