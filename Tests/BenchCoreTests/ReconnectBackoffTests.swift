import Testing

@testable import BenchCore

@Suite struct ReconnectBackoffTests {
    private let backoff = ReconnectBackoff(base: 100_000_000, maximum: 5_000_000_000, tries: 10)

    @Test func theWaitDoublesFromTheBaseUpToTheMaximum() {
        let waits = (0..<9).map { backoff.backoff(attempt: $0) / 1_000_000 }
        #expect(waits == [100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000, 5_000])
    }

    @Test func hugeAttemptsAndBasesStayAtTheMaximumInsteadOfOverflowing() {
        let day: UInt64 = 86_400_000_000_000
        let long = ReconnectBackoff(base: day, maximum: day, tries: 1_000_000)
        for attempt in [0, 1, 20, 63, 64, 65, 999_999, Int.max] { #expect(long.backoff(attempt: attempt) == day) }
        let odd = ReconnectBackoff(base: 3, maximum: UInt64.max, tries: 100)
        #expect(odd.backoff(attempt: 62) == 3 << 62 || odd.backoff(attempt: 62) == UInt64.max)
        #expect(odd.backoff(attempt: 63) == UInt64.max)
        var random = SplitMix64(seed: 1)
        #expect(odd.delay(attempt: 200, random: &random) >= UInt64.max / 2)
    }

    @Test func theJitterKeepsEachWaitBetweenHalfAndAllOfItsBackoffAndSpreadsThem() {
        var random = SplitMix64(seed: 42)
        for attempt in 0..<8 {
            let full = backoff.backoff(attempt: attempt)
            let delays = (0..<2_000).map { _ in backoff.delay(attempt: attempt, random: &random) }
            #expect(delays.allSatisfy { $0 >= full / 2 && $0 <= full })
            // Spread over the upper half: both quarters of it are used.
            #expect(delays.contains { $0 < full / 2 + full / 8 } && delays.contains { $0 > full - full / 8 })
        }
    }

    @Test func aClientTriesExactlyItsNumberOfTimes() {
        #expect((0..<20).filter(backoff.allows(attempt:)) == Array(0..<10))
    }

    /// How long a client keeps trying after a drop: each try's longest wait, added (what a run with nobody connected
    /// waits for returns against a user's server); it never overflows.
    @Test func theSpanIsEveryTrysLongestWaitAdded() {
        let backoff = ReconnectBackoff(base: 100, maximum: 1_000, tries: 6)  // 100, 200, 400, 800, 1000, 1000
        #expect(backoff.span == 3_500)
        #expect(ReconnectBackoff(base: .max / 2, maximum: .max, tries: 4).span == .max)
        #expect(ReconnectBackoff(base: 100, maximum: 100, tries: 0).span == 0)
    }
}
