/// How the gaps between sends are drawn.
public enum Arrival: String, CaseIterable, Sendable {
    /// Exponential gaps with the given mean: the memoryless arrivals a push service sees from many sources.
    case poisson
    /// Every gap equal to the interval.
    case fixed
}

/// Send times fixed before a run, so that a slow harness shows up as lag rather than as a slower schedule.
public enum SendSchedule {
    /// `count` send times in nanoseconds after the start of the run, ascending, the first at 0.
    ///
    /// The times saturate at `UInt64.max` rather than overflow; a run keeps its timetable far below that
    /// (`RunConfiguration.Limits`).
    ///
    /// - Parameters:
    ///   - meanInterval: The mean gap (exactly the gap for ``Arrival/fixed``); more than 0.
    ///   - arrival: Fixed or exponential gaps.
    ///   - rng: Where the random gaps come from; advanced by `count − 1` draws for ``Arrival/poisson``.
    public static func offsets(count: Int, meanInterval: UInt64, arrival: Arrival, rng: inout SplitMix64) -> [UInt64] {
        precondition(meanInterval > 0, "a closed-loop run has no schedule")
        var offsets = [UInt64](repeating: 0, count: count)
        for index in offsets.indices.dropFirst() {
            offsets[index] = next(after: offsets[index - 1], meanInterval: meanInterval, arrival: arrival, rng: &rng)
        }
        return offsets
    }

    /// The send time after `offset`: one gap later (saturating at `UInt64.max`), one draw of `rng` for
    /// ``Arrival/poisson``. ``offsets(count:meanInterval:arrival:rng:)`` one at a time, for timetables too long to
    /// hold.
    @inline(__always)
    public static func next(after offset: UInt64, meanInterval: UInt64, arrival: Arrival, rng: inout SplitMix64) -> UInt64 {
        let gap: UInt64
        switch arrival {
        case .fixed:
            gap = meanInterval
        case .poisson:
            let exact = (-portableNaturalLog(rng.nextUnitInterval()) * Double(meanInterval)).rounded()
            gap = exact < 0x1p64 ? UInt64(exact) : .max
        }
        let (sum, overflow) = offset.addingReportingOverflow(gap)
        return overflow ? .max : sum
    }
}
