import Testing

@testable import BenchReports

@Suite struct OverTimeTests {
    @Test func aLongRunIsCutIntoAtMostAThousandSlicesEachWithItsWorstValue() {
        var overTime = OverTime(duration: 10_000_000_000)
        for message in 0..<100_000 {
            let time = UInt64(message) * 100_000  // every 100 µs over 10 s
            overTime.add(time: time, value: message % 7 == 0 ? nil : UInt64(message % 1000))
        }
        let buckets = overTime.finished().buckets
        #expect(buckets.count <= OverTime.maximumBuckets && buckets.count >= 990)
        #expect(buckets.map(\.start) == buckets.map(\.start).sorted())
        #expect(buckets.reduce(0) { $0 + $1.lost } == (0..<100_000).filter { $0 % 7 == 0 }.count)
        #expect(buckets.allSatisfy { ($0.worst ?? 0) <= 999 })
    }

    @Test func aSliceWhereEverythingWasLostHasNoWorstValue() {
        var overTime = OverTime(duration: 1_000)
        overTime.add(time: 0, value: nil)
        overTime.add(time: 999, value: 42)
        let buckets = overTime.finished().buckets
        #expect(buckets.first?.worst == nil && buckets.first?.lost == 1)
        #expect(buckets.last?.worst == 42)
    }

    @Test func theSameDurationTextCutsTheSameSlices() {
        // A run and its saved folder both start from run.csv's duration_s.
        #expect(OverTime(durationText: "2.500") == OverTime(durationText: "2.500"))
        #expect(OverTime(durationText: "not a number").buckets.isEmpty)
    }
}
