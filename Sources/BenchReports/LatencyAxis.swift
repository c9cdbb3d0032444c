import BenchCore

/// The latency axis of a metric's plots: its range, fitted to the data, its ticks each in its own unit (`500µs`,
/// `1ms`, `2ms`: a log axis spans decades, and `1000000µs` reads badly), and where the
/// `--under` threshold goes (on the axis, or off it as a note at the edge).
struct LatencyAxis {
    /// Where the `--under` threshold falls against the axis.
    enum UnderPlacement: Equatable {
        case onAxis
        /// Far above the data: a note at the high end.
        case beyondHigh
        /// Far below the data: a note at the low end.
        case beyondLow
    }

    /// The axis range, nanoseconds, on 1-2-5 boundaries.
    let range: ClosedRange<Double>
    let under: Double
    let underPlacement: UnderPlacement

    /// How far beyond the data `--under` may be and still widen the axis to reach it.
    static let underReach = 10.0

    /// The axis for values from `minimum` to `maximum` (nanoseconds) with the threshold `under`.
    init(minimum: UInt64, maximum: UInt64, under: Double) {
        var low = Double(Swift.max(minimum, 1))
        var high = Double(Swift.max(maximum, 1))
        if under > 0 && under <= high * Self.underReach && under >= low / Self.underReach {
            underPlacement = .onAxis
            low = Swift.min(low, under)
            high = Swift.max(high, under * 1.05)  // room for the line and its label
        } else {
            underPlacement = under > high ? .beyondHigh : .beyondLow
        }
        let lower = Self.niceStep(atMost: low)
        var upper = Self.niceStep(atLeast: high)
        if upper <= lower { upper = Self.niceStep(atLeast: lower * 1.5) }
        range = lower...upper
        self.under = under
    }

    /// The largest 1, 2 or 5 × 10^k at or below `value` (≥ 1).
    static func niceStep(atMost value: Double) -> Double {
        var decade = 1.0
        while decade * 10 <= value { decade *= 10 }
        return [5.0, 2, 1].map { $0 * decade }.first { $0 <= value } ?? decade
    }

    /// The smallest 1, 2 or 5 × 10^k at or above `value`.
    static func niceStep(atLeast value: Double) -> Double {
        var decade = 1.0
        while decade < value { decade *= 10 }
        // decade ≥ value; try the steps of the decade below first.
        return [1.0, 2, 5].map { $0 * decade / 10 }.first { $0 >= value } ?? decade
    }

    /// Ticks at 1, 2 and 5 × powers of ten within the range, each in the largest unit it reads in (``LatencyUnit/reading(_:)``);
    /// over more than two decades only the powers of ten (and the ends) are labelled, so labels never overlap.
    var ticks: [(Double, String)] {
        let decades = portableLog2(range.upperBound / range.lowerBound) / portableLog2(10)
        var ticks: [(Double, String)] = []
        var decade = 1.0
        while decade <= range.upperBound {
            for step in [1.0, 2, 5] where range.contains(decade * step) {
                let value = decade * step
                let labelled = step == 1 || decades <= 2
                ticks.append((value, labelled ? LatencyUnit.reading(value).text(nanoseconds: value) : ""))
            }
            decade *= 10
        }
        return ticks
    }

    /// The note for a threshold off the axis: `--under 200ms →`.
    var underNote: String? {
        switch underPlacement {
        case .onAxis: return nil
        case .beyondHigh: return "--under \(AxisTicks.label(nanoseconds: under)) →"
        case .beyondLow: return "← --under \(AxisTicks.label(nanoseconds: under))"
        }
    }

    /// The label of the threshold's line.
    var underLabel: String { "--under " + AxisTicks.label(nanoseconds: under) }
}

/// One unit for every tick of an axis: `ns`, `µs`, `ms` or `s`.
struct LatencyUnit: Equatable {
    let name: String
    let size: Double

    static let all = [
        LatencyUnit(name: "s", size: 1e9), LatencyUnit(name: "ms", size: 1e6), LatencyUnit(name: "µs", size: 1e3),
        LatencyUnit(name: "ns", size: 1),
    ]

    /// The largest unit in which the range's low end still reads with at most one decimal (0.1ms, not 0.01ms).
    static func fitting(_ range: ClosedRange<Double>) -> LatencyUnit {
        all.first { range.lowerBound >= $0.size / 10 && range.upperBound >= $0.size } ?? all[all.count - 1]
    }

    /// The largest unit in which `value` is at least 1: `1ms`, not `1000µs`.
    static func reading(_ value: Double) -> LatencyUnit {
        all.first { value >= $0.size } ?? all[all.count - 1]
    }

    /// The unit for a linear axis from 0 to `maximum`: the largest in which the maximum is at least 1.
    static func fitting(upTo maximum: Double) -> LatencyUnit {
        all.first { maximum >= $0.size } ?? all[all.count - 1]
    }

    /// `value` in this unit with no more decimals than it needs (up to 2): `0.5ms`, `200µs`, `1.25s`.
    func text(nanoseconds value: Double) -> String {
        DecimalText.trimmed(value / size, fractionDigits: 2) + name
    }
}

/// The x axis of a percentile plot, as HdrHistogram's plotter draws it: 1/(1−p) on a log scale, labelled
/// 0%, 50%, 90%, 99%, 99.9%, …
enum PercentileAxis {
    /// The position of percentile `p` (0..<100): 1/(1 − p/100).
    static func position(_ p: Double) -> Double { 1 / (1 - p / 100) }

    /// The axis end for `count` values: a decade past the last percentile the count resolves, at least 99%
    /// (1/(1−p) = 100).
    static func end(count: Int) -> Double {
        var end = 100.0
        while end <= Double(count) { end *= 10 }
        return end
    }

    /// Ticks at 0%, 50%, 90%, 99%, … up to `end`, on a plot `width` pixels wide. A label that would overlap a more
    /// important one is left blank (its tick and grid line stay): the median's and the last one's are kept first,
    /// then 90%, 99%, … and 0% last, so `0%50%` and `99.9999%99.99999%` never run together.
    static func ticks(upTo end: Double, width: Double = 480) -> [(Double, String)] {
        var ticks: [(Double, String)] = [(1, "0%"), (2, "50%")]
        var position = 10.0
        var nines = 1
        while position <= end * 1.000_001 {
            ticks.append((position, nines == 1 ? "90%" : "99" + (nines > 2 ? "." + String(repeating: "9", count: nines - 2) : "") + "%"))
            position *= 10
            nines += 1
        }
        let decades = portableLog2(end) / portableLog2(10)
        func pixels(_ index: Int) -> Double { portableLog2(ticks[index].0) / portableLog2(10) / decades * width }
        func halfWidth(_ index: Int) -> Double { Double(ticks[index].1.count) * 3.4 + 3 }  // SVGPlot's estimate, a gap
        let priority = [1, ticks.count - 1] + Array(2..<(ticks.count - 1)) + [0]
        var kept: [Int] = []
        for index in priority where !kept.contains(index) {
            if kept.allSatisfy({ abs(pixels(index) - pixels($0)) >= halfWidth(index) + halfWidth($0) }) { kept.append(index) }
        }
        return ticks.indices.map { kept.contains($0) ? ticks[$0] : (ticks[$0].0, "") }
    }
}
