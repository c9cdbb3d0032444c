import Testing

@testable import BenchCore

/// Units and statistic names the same going in as coming out: `µs` and `200 ms` wherever durations are read,
/// `p999` wherever `p99.9` is, any percentile `pNN.NNN` in thresholds, and measured values written as the summary
/// table writes them.
@Suite struct UnitsAndPercentilesTests {
    private let fanoutMetrics = ["delivery", "spread", "completion", "rtt", "lag"]

    private func threshold(_ text: String) throws -> Threshold {
        try Threshold(parsing: text, defaultMetric: "spread", metrics: fanoutMetrics)
    }

    /// Values 1…count ns, and `lost` lost.
    private func builder(count: Int, lost: Int = 0, metric: String = "spread") -> DistributionBuilder {
        var builder = DistributionBuilder(metric: metric, under: 1_000_000)
        for value in 1...count { builder.record(UInt64(value)) }
        builder.recordLost(lost)
        return builder
    }

    // MARK: Durations

    @Test(arguments: [
        ("10us", 10_000), ("10µs", 10_000), ("10\u{3BC}s", 10_000), ("100µs", 100_000), ("1.5µs", 1_500),
        ("5 µs", 5_000), ("5 us", 5_000), ("200 ms", 200_000_000), ("250 ns", 250), ("2 s", 2_000_000_000),
        ("1.5  ms", 1_500_000), ("0 µs", 0), ("0.001µs", 1),
    ] as [(String, UInt64)])
    func microsecondsAsTheReportsWriteThemAndASpaceBeforeTheUnitAreRead(text: String, nanoseconds: UInt64) throws {
        #expect(try DurationText.parse(text) == nanoseconds)
    }

    @Test(arguments: ["µs", " µs", "5 µs ", " 5µs", "5µ", "5 µ s", "5µss", "0.5 ns", "1.µs", "µ5s", "5 ", " "])
    func oddSpellingsWithTheNewUnitOrSpacesAreStillRefused(text: String) {
        let error = #expect(throws: UnitError.self) { try DurationText.parse(text) }
        #expect(error?.text == text)
    }

    @Test func aSpaceDoesNotChangeTheReasons() {
        #expect(throws: UnitError(text: "0.5 ns", reason: "not a whole number of nanoseconds, or too large")) {
            try DurationText.parse("0.5 ns")
        }
        #expect(throws: UnitError(text: "10", reason: "missing unit (ns, us, ms, s)")) { try DurationText.parse("10") }
    }

    @Test func formatStillWritesUsSoThatItsTextReadsBackEverywhere() {
        #expect(DurationText.format(1_500) == "1.5us")
    }

    @Test(arguments: [
        (0, "0ns"), (850, "850ns"), (999, "999ns"), (1_000, "1.0µs"), (250_100, "250.1µs"), (1_220_000, "1.22ms"),
        (12_340_000, "12.34ms"), (250_100_000, "250.10ms"), (1_234_000_000, "1.234s"),
    ] as [(UInt64, String)])
    func durationsForPeopleAreWrittenAsTheSummaryTableWritesThem(nanoseconds: UInt64, text: String) {
        #expect(DurationText.display(nanoseconds) == text)
    }

    // MARK: Thresholds

    @Test(arguments: [
        ("spread.p99<200 ms", Threshold.Limit.nanoseconds(200_000_000)), ("p99<5µs", .nanoseconds(5_000)),
        ("rtt.p50 <= 5 µs", .nanoseconds(5_000)), ("max<1.5 s", .nanoseconds(1_500_000_000)),
        ("mean<250 us", .nanoseconds(250_000)),
    ])
    func thresholdLimitsTakeMicrosecondsAndASpaceBeforeTheUnit(text: String, limit: Threshold.Limit) throws {
        #expect(try threshold(text).limit == limit)
    }

    @Test func p999IsP99Point9() throws {
        let written = try threshold("spread.p999<5ms")
        #expect(written.statistic == .p999)
        #expect(written.statistic.rawValue == "p99.9")
        #expect(written.expression == "spread.p999<5ms")
        let summary = builder(count: 10_000).summary()
        #expect(written.evaluate(summary).measuredText == (try threshold("spread.p99.9<5ms")).evaluate(summary).measuredText)
        #expect(try threshold("p999<5ms").statistic == .p999)
    }

    @Test(arguments: [
        ("p99.99", 99_990), ("p75", 75_000), ("p99.999", 99_999), ("p0.001", 1), ("p99.95", 99_950), ("p1", 1_000),
        ("p33.3", 33_300), ("p99.990", 99_990), ("p05", 5_000),
    ])
    func anyPercentileToTheThousandthIsAStatistic(name: String, thousandths: Int) throws {
        let statistic = try #require(Threshold.Statistic(rawValue: name))
        #expect(statistic == .percentile(thousandths: thousandths))
        #expect(statistic.percentile == Double(thousandths) / 1000)
        #expect(Threshold.Statistic(rawValue: statistic.rawValue) == statistic, "its name reads back")
        let parsed = try threshold("spread.\(name)<200ms")
        #expect(parsed.statistic == statistic)
        #expect(parsed.metric == "spread")
    }

    @Test(arguments: [
        ("p50.0", Threshold.Statistic.p50), ("p90.00", .p90), ("p95", .p95), ("p99.000", .p99), ("p99.90", .p999),
    ])
    func aFixedPercentileWrittenWithDecimalsIsTheFixedOne(name: String, statistic: Threshold.Statistic) {
        #expect(Threshold.Statistic(rawValue: name) == statistic)
    }

    @Test(arguments: [
        "p100", "p0", "p0.000", "p99.9999", "p-1", "pabc", "p", "p.5", "p99.", "p1000", "p 99", "p99.9.9", "P99",
        "p+5", "p١", "p99.99ms",
    ])
    func percentilesOutOfRangeOrFinerThanAThousandthAreRefused(name: String) {
        #expect(Threshold.Statistic(rawValue: name) == nil)
        let error = #expect(throws: ThresholdError.self) { try threshold("spread.\(name)<200ms") }
        #expect(error?.reason.contains("unknown statistic") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("pNN.NNN") == true, "the reason says what a percentile looks like")
    }

    @Test func aPercentileTakesADurationNotAPercent() {
        let error = #expect(throws: ThresholdError.self) { try threshold("p99.99<5%") }
        #expect(error?.reason == "p99.99 takes a duration, not a percent")
    }

    @Test func anUnknownMetricBeforeAnyPercentileIsNamed() {
        let error = #expect(throws: ThresholdError.self) { try threshold("spred.p99.99<1ms") }
        #expect(error?.reason.hasPrefix("unknown metric 'spred'") == true)
    }

    // MARK: Exact percentiles

    @Test func p99Point99OfOneToTenThousandIsTheNearestRank() throws {
        let summary = builder(count: 10_000).summary(percentiles: [99.99, 75, 99.999, 0.001])
        // Nearest rank: the value at ⌈p/100 × n⌉ of the sorted values.
        #expect(summary.percentiles[99_990] == 9_999)  // ⌈0.9999 × 10000⌉ = 9999
        #expect(summary.percentiles[75_000] == 7_500)
        #expect(summary.percentiles[99_999] == 10_000)  // ⌈9999.9⌉
        #expect(summary.percentiles[1] == 1)  // ⌈0.1⌉
        #expect(summary.percentile(99.99) == 9_999)
        #expect(summary.percentile(99.9) == summary.p999)
        let result = try threshold("spread.p99.99<10us").evaluate(summary)
        #expect(result.held)
        #expect(result.measuredText == "10.0µs")  // 9999 ns, as the table shows it
        #expect(result.statistic == "p99.99")
    }

    @Test func requestedPercentilesAgreeWithAnIndependentNearestRankOnRandomValues() {
        var random = SplitMix64(seed: 0x9999)
        for count in [1, 2, 3, 7, 10, 999, 1_000, 1_001, 12_345] {
            var builder = DistributionBuilder(metric: "rtt", under: 1)
            var values: [UInt64] = []
            for _ in 0..<count {
                let value = random.nextBounded(1_000_000)
                values.append(value)
                builder.record(value)
            }
            values.sort()
            let percentiles = [0.001, 1, 25, 33.333, 50, 75, 99, 99.5, 99.9, 99.99, 99.999]
            let summary = builder.summary(percentiles: percentiles)
            for p in percentiles {
                let thousandths = Int((p * 1000).rounded())
                // ⌈thousandths × count / 100000⌉, at least 1.
                let rank = Swift.max(1, (thousandths * count + 99_999) / 100_000)
                #expect(summary.percentile(p) == values[rank - 1], "p\(p) of \(count)")
            }
        }
    }

    @Test func theFixedPercentilesAreTheSameWhenAsked() {
        let plain = builder(count: 1_234, lost: 5).summary()
        let asked = builder(count: 1_234, lost: 5).summary(percentiles: [50, 99.9, 99.99])
        #expect(asked.p50 == plain.p50)
        #expect(asked.p999 == plain.p999)
        #expect(asked.count == plain.count)
        #expect(plain.percentiles.isEmpty)
        #expect(asked.percentile(99.99) != nil)
    }

    @Test func lostValuesCountInRequestedPercentilesAsInTheFixedOnes() {
        // Percentiles are over the measured values: a lost one is in `lost` (and against pct_under), not a rank.
        let withLosses = builder(count: 10_000, lost: 500).summary(percentiles: [99.99, 90])
        let without = builder(count: 10_000).summary(percentiles: [99.99, 90])
        #expect(withLosses.percentiles == without.percentiles)
        #expect(withLosses.p99 == without.p99)
        #expect(withLosses.percentile(99.99) == 9_999)
        #expect(withLosses.percentile(90) == withLosses.p90)
        #expect(withLosses.lost == 500)
    }

    @Test func aRequestedPercentileOfNothingMeasuredDoesNotHold() throws {
        var builder = DistributionBuilder(metric: "spread", under: 1)
        builder.recordLost(5)
        let summary = builder.summary(percentiles: [99.99])
        #expect(summary.percentile(99.99) == nil)
        let result = try threshold("p99.99<1s").evaluate(summary)
        #expect(!result.held)
        #expect(result.breachLine == "threshold breached: p99.99<1s on spread (measured nothing: no value was measured, limit 1s)")
    }

    @Test func percentilesOutsideTheRangeAreNotComputed() {
        let summary = builder(count: 10).summary(percentiles: [0, 100, -1, 150])
        #expect(summary.percentiles.isEmpty)
    }

    @Test func theThresholdsAskForTheirPercentilesBeforeTheMetricsAreKnown() {
        let asked = Threshold.percentiles(in: [
            "spread.p99.99<200 ms", "p75<1ms", "rtt.p999<5ms", "lost==0", "max<1s", "not a threshold", "p99.9999<1ms",
            " completion.p99.999 <= 1s",
        ])
        #expect(asked == [99.99, 75, 99.9, 99.999])
    }

    // MARK: Breach lines

    @Test func aBreachLineShowsTheMeasuredValueAsTheTableDoes() throws {
        var builder = DistributionBuilder(metric: "spread", under: 1)
        for _ in 0..<100 { builder.record(250_100_000) }
        let summary = builder.summary(percentiles: [99.99])
        #expect(try threshold("spread.p99<200ms").evaluate(summary).breachLine
            == "threshold breached: spread.p99<200ms (measured 250.10ms, limit 200ms; 95%: 250.10ms–250.10ms of 100 values)")
        // Of 100 values a p99.99 can only be the largest: the line says how many a decided verdict needs.
        #expect(try threshold("spread.p99.99<200 ms").evaluate(summary).breachLine
            == "threshold breached: spread.p99.99<200 ms (measured 250.10ms, limit 200ms; of 100 values a p99.99 is the "
            + "largest: a verdict decided at 95% needs 29956 or more)")
        #expect(try threshold("spread.p999<5µs").evaluate(summary).breachLine
            == "threshold breached: spread.p999<5µs (measured 250.10ms, limit 5us; of 100 values a p99.9 is the "
            + "largest: a verdict decided at 95% needs 2995 or more)")
    }

    // MARK: Regression limits

    @Test(arguments: [
        ("rtt.p999=+10%", "p99.9", RegressionLimit.Allowance.percent(10)),
        ("rtt.p99.9=+10%", "p99.9", .percent(10)),
        ("spread.p99=+200µs", "p99", .nanoseconds(200_000)),
        ("spread.p99=+200 us", "p99", .nanoseconds(200_000)),
        ("rtt.p50 = +5 µs", "p50", .nanoseconds(5_000)),
    ])
    func regressionLimitsTakeP999MicrosecondsAndSpaces(
        text: String, statistic: String, allowance: RegressionLimit.Allowance
    ) throws {
        let limit = try RegressionLimit(parsing: text, metrics: ["rtt", "spread"])
        #expect(limit.statistic == statistic)
        #expect(limit.allowance == allowance)
        #expect(limit.expression == text)
    }

    @Test func aP999LimitFindsTheP99Point9RowOfAComparison() throws {
        let baseline = builder(count: 1_000, metric: "rtt").summary()
        var slower = DistributionBuilder(metric: "rtt", under: 1_000_000)
        for value in 1...1_000 { slower.record(UInt64(value) * 2) }
        let comparison = RunComparison(
            baseline: [baseline], current: [slower.summary()],
            limits: [try RegressionLimit(parsing: "rtt.p999=+10%", metrics: ["rtt"])], noiseFloor: 0)
        #expect(comparison.regressions.count == 1)
    }

    @Test func aRegressionLimitOnAnUnknownStatisticIsStillRefused() {
        let error = #expect(throws: ThresholdError.self) {
            try RegressionLimit(parsing: "rtt.p98=+10%", metrics: ["rtt"])
        }
        #expect(error?.reason.hasPrefix("unknown statistic 'p98'") == true)
    }
}
