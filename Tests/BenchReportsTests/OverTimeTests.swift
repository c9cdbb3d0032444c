import BenchCore
import BenchReports
import BenchScenarios
import Testing

@Suite struct OverTimeTests {
    @Test func aLongRunIsCutIntoAtMostAThousandSlicesEachWithItsWorstValue() {
        var overTime = OverTime()
        for message in 0..<100_000 {
            let time = UInt64(message) * 100_000  // every 100 µs over 10 s
            overTime.add(time: time, value: message % 7 == 0 ? nil : UInt64(message % 1000))
        }
        let buckets = overTime.finished().buckets
        #expect(buckets.count <= OverTime.maximumBuckets && buckets.count >= 600)
        #expect(buckets.map(\.start) == buckets.map(\.start).sorted())
        #expect(buckets.reduce(0) { $0 + $1.lost } == (0..<100_000).filter { $0 % 7 == 0 }.count)
        #expect(buckets.allSatisfy { ($0.worst ?? 0) <= 999 })
        #expect(buckets.contains { $0.worst == 999 })
    }

    @Test func aSliceWhereEverythingWasLostHasNoWorstValue() {
        var overTime = OverTime()
        overTime.add(time: 0, value: nil)
        overTime.add(time: 5_000_000, value: 42)
        let buckets = overTime.finished().buckets
        #expect(buckets.first?.worst == nil && buckets.first?.lost == 1)
        #expect(buckets.last?.worst == 42)
    }

    @Test func theOrderOfTheValuesDoesNotChangeTheSlices() {
        // A run streams its values in the order they settle; its saved folder is read back in file order.
        var values: [(UInt64, UInt64?)] = []
        for step in 0..<5_000 {
            let time = UInt64(step * 7_919 % 5_000) * 3_000_000
            values.append((time, step % 11 == 0 ? nil : UInt64(step)))
        }
        var forward = OverTime()
        var backward = OverTime()
        for (time, value) in values { forward.add(time: time, value: value) }
        for (time, value) in values.reversed() { backward.add(time: time, value: value) }
        #expect(forward.finished() == backward.finished())
        #expect(forward.finished().width == 16_000_000)  // 15 s over 1,000 slices: 1 ms doubled 4 times
    }
}

@Suite struct IntervalLineTests {
    /// Every line in one form, tenths of a second, whole intervals and the run's short last one alike: the start
    /// rounded down, the end up, so that the ends never read the same ([20.0s–20.1s] for 20.000 s to 20.004 s).
    @Test(arguments: [
        (UInt64(10_000_000_000), UInt64(20_000_000_000), "[10.0s–20.0s]"),
        (20_000_000_000, 20_400_000_000, "[20.0s–20.4s]"),
        (20_000_000_000, 20_004_000_000, "[20.0s–20.1s]"),
        (20_050_000_000, 20_120_000_000, "[20.0s–20.2s]"),
    ])
    func anIntervalsEndsAreToldApart(start: UInt64, end: UInt64, text: String) throws {
        let row = TimelineRow(
            interval: 0, start: start, end: end, metric: "rtt", count: 1, lost: 0, p50: 1, p90: 1, p99: 1, max: 1)
        let line = try #require(TimelineCSV.line([row], metric: "rtt"))
        #expect(line.hasPrefix(text + " rtt: 1 measured"), "\(line)")
    }
}
