import Testing

@testable import BenchCore

@Suite struct ThresholdTests {
    private let fanoutMetrics = ["delivery", "spread", "completion", "rtt", "lag"]

    private func parse(_ text: String, defaultMetric: String = "spread") throws -> Threshold {
        try Threshold(parsing: text, defaultMetric: defaultMetric, metrics: fanoutMetrics, shareMetric: "delivery")
    }

    /// A summary of rtt values 1..1000 µs, 10 of 1010 sent lost.
    private func summary(metric: String = "rtt") -> DistributionSummary {
        var builder = DistributionBuilder(metric: metric, under: 500_000)
        for value in 1...1000 { builder.record(UInt64(value) * 1_000) }
        builder.recordLost(10)
        return builder.summary()
    }

    @Test(arguments: [
        ("spread.p99<200ms", "spread", Threshold.Statistic.p99, Threshold.Comparison.less, Threshold.Limit.nanoseconds(200_000_000)),
        ("rtt.p50<=2ms", "rtt", .p50, .lessOrEqual, .nanoseconds(2_000_000)),
        // pct_under and lost count every sent message: without a metric, fanout's delivery (the README's CI line).
        ("pct_under>=99%", "delivery", .percentUnder, .greaterOrEqual, .percent(99)),
        ("lost==0", "delivery", .lost, .equal, .count(0)),
        ("delivery.p99.9 > 1.5us", "delivery", .p999, .greater, .nanoseconds(1_500)),
        (" completion.max <= 1s ", "completion", .max, .lessOrEqual, .nanoseconds(1_000_000_000)),
        ("rtt.lost<=0.5%", "rtt", .lost, .lessOrEqual, .percent(0.5)),
        ("mean<250us", "spread", .mean, .less, .nanoseconds(250_000)),
    ])
    func expressionsAreReadAsSpecWritesThem(
        text: String, metric: String, statistic: Threshold.Statistic, comparison: Threshold.Comparison,
        limit: Threshold.Limit
    ) throws {
        let threshold = try parse(text)
        #expect(threshold.metric == metric)
        #expect(threshold.statistic == statistic)
        #expect(threshold.comparison == comparison)
        #expect(threshold.limit == limit)
        #expect(threshold.expression == text)
    }

    @Test(arguments: [
        ("p99<5%", "p99 takes a duration, not a percent"),
        ("lost<1ms", "lost takes a count"),
        ("pct_under>=99", "pct_under takes a percent"),
        ("spred.p99<1ms", "unknown metric 'spred'"),
        ("p100<1ms", "unknown statistic 'p100'"),
        ("p99 1ms", "expected [metric.]stat OP value"),
        ("p99=1ms", "expected [metric.]stat OP value"),
        ("p99<10", "missing unit"),
        ("pct_under>=101%", "is not a percent from 0% to 100%"),
        ("lost==-1", "lost takes a count"),
        ("p99<", "p99 takes a duration"),  // an operator at the very end once read past the text
        ("p99>", "p99 takes a duration"),
        ("spread.p99<", "p99 takes a duration"),
        ("<", "unknown statistic ''"),
    ])
    func malformedExpressionsAreRefusedWithAReason(text: String, reason: String) {
        #expect {
            try parse(text)
        } throws: { error in
            (error as? ThresholdError)?.reason.contains(reason) == true
        }
    }

    /// A link group selected after the metric (`{link=…}`, whose `=` is no operator); the percentiles and counted
    /// limits it asks for are its statistic's, as without a selector.
    @Test func aLinkGroupIsSelectedAfterItsMetric() throws {
        let grouped = try parse("delivery{link=3g}.p99<300ms")
        #expect(grouped.metric == "delivery" && grouped.link == "3g" && grouped.statistic == .p99)
        #expect(grouped.comparison == .less && grouped.limit == .nanoseconds(300_000_000))
        #expect(try parse("rtt{link=delay=40ms,jitter=5ms}.p50 <= 100ms").link == "delay=40ms,jitter=5ms")
        #expect(try parse("delivery.p99<300ms").link == nil)
        #expect(Threshold.percentiles(in: ["delivery{link=3g}.p99.99<1s"]) == [99.99])
        #expect(Threshold.countedLimits(in: ["delivery{link=3g}.p99<300ms"]) == [300_000_000])
        for (text, reason) in [
            ("{link=3g}.p99<300ms", "a link group is selected on a named metric"),
            ("p99{link=3g}<300ms", "a link group is selected on a named metric"),
            ("delivery{room=3}.p99<300ms", "selects nothing bench knows"),
            ("delivery{link=}.p99<300ms", "selects nothing bench knows"),
            ("delivery{link=3g.p99<300ms", "without its '}'"),
        ] {
            #expect { try parse(text) } throws: { ($0 as? ThresholdError)?.reason.contains(reason) == true }
        }
    }

    @Test func aMetricTheScenarioDoesNotReportIsRefused() {
        #expect(throws: ThresholdError.self) {
            try Threshold(parsing: "spread.p99<1ms", defaultMetric: "rtt", metrics: ["rtt", "lag"])
        }
    }

    @Test(arguments: [
        ("rtt.p50<=500us", true, "500.0µs"), ("rtt.p50<500us", false, "500.0µs"), ("rtt.p99<1ms", true, "990.0µs"),
        ("rtt.max==1ms", true, "1.00ms"), ("rtt.min>1us", false, "1.0µs"), ("rtt.mean<=500.5us", true, "500.5µs"),
        ("rtt.lost==10", true, "10"), ("rtt.lost<10", false, "10"), ("rtt.lost<=1%", true, "0.99%"),
        ("rtt.pct_under>=49%", true, "49.406%"), ("rtt.pct_under>=50%", false, "49.406%"),
    ])
    func thresholdsAreCheckedAgainstTheSummary(text: String, held: Bool, measured: String) throws {
        let result = try parse(text).evaluate(summary())
        #expect(result.held == held)
        #expect(result.measuredText == measured)
    }

    @Test func aPercentileOfAMetricWithNothingMeasuredDoesNotHold() throws {
        var builder = DistributionBuilder(metric: "spread", under: 1)
        builder.recordLost(5)
        let result = try parse("p99<1s").evaluate(builder.summary())
        #expect(!result.held)
        #expect(result.measuredText == nil)
        #expect(result.breachLine == "threshold breached: p99<1s on spread (measured nothing: no value was measured, limit 1s)")
    }

    @Test func aBreachLineNamesTheExpressionTheMeasuredValueAndTheLimit() throws {
        let result = try parse("rtt.p99<100us").evaluate(summary())
        #expect(result.breachLine
            == "threshold breached: rtt.p99<100us (measured 990.0µs, limit 100us; 95%: 984.0µs–997.0µs of 1010 values)")
    }
}

/// A verdict's evidence: how many values a threshold judged, how many lay beyond its limit (lost ones too slow), and
/// what they decide, counted from the summary as independently as a test can.
@Suite struct ThresholdEvidenceTests {
    static func summary(_ values: [UInt64], lost: Int = 0, limits: [UInt64]) -> DistributionSummary {
        var builder = DistributionBuilder(metric: "spread", under: 1_000_000)
        for value in values { builder.record(value) }
        builder.recordLost(lost)
        return builder.summary(limits: limits)
    }

    @Test func aPercentileCountsTheValuesAtOrOverItsLimitAndTheLost() throws {
        let values = (1...600).map { UInt64($0) * 1_000 }  // 1µs … 600µs
        let under = try Threshold(parsing: "p99<598us", defaultMetric: "spread", metrics: ["spread"])
        let result = under.evaluate(Self.summary(values, lost: 1, limits: [try #require(under.countedLimit)]))
        #expect(result.evidence?.values == 601)
        #expect(result.evidence?.beyond == values.filter { $0 >= 598_000 }.count + 1)
        #expect(result.evidence?.allowedShare == 0.01)
        #expect(result.evidence?.decision == .undecided, "4 of 601 beyond a 1% share: chance could give as many")
        let wider = try Threshold(parsing: "p99<601us", defaultMetric: "spread", metrics: ["spread"])
        let lostOnly = wider.evaluate(Self.summary(values, lost: 1, limits: [601_000]))
        #expect(lostOnly.evidence?.beyond == 1 && lostOnly.evidence?.decision == .pass, "the lost one alone")
        let atMost = try Threshold(parsing: "p99<=598us", defaultMetric: "spread", metrics: ["spread"])
        #expect(atMost.countedLimit == 598_001)
        let judged = atMost.evaluate(Self.summary(values, limits: [598_001]))
        #expect(judged.evidence?.beyond == values.filter { $0 > 598_000 }.count)
    }

    @Test func aLowerBoundCountsTheValuesUnderIt() throws {
        let values = (1...100).map { UInt64($0) * 1_000 }
        let threshold = try Threshold(parsing: "p50>20us", defaultMetric: "spread", metrics: ["spread"])
        let result = threshold.evaluate(Self.summary(values, limits: [try #require(threshold.countedLimit)]))
        #expect(result.evidence?.beyond == values.filter { $0 <= 20_000 }.count)
        #expect(result.evidence?.allowedShare == 0.5)
        #expect(result.evidence?.decision == .pass)
    }

    @Test func percentUnderAndLostInPercentAreShares() throws {
        let values = [UInt64](repeating: 500_000, count: 1000)  // all under 1ms
        let under = try Threshold(parsing: "pct_under>=99%", defaultMetric: "spread", metrics: ["spread"])
        let result = under.evaluate(Self.summary(values, lost: 4, limits: []))
        #expect(result.evidence?.values == 1004 && result.evidence?.beyond == 4)
        #expect(result.evidence?.decision == .pass)
        let lost = try Threshold(parsing: "lost<=1%", defaultMetric: "spread", metrics: ["spread"])
        #expect(lost.evaluate(Self.summary(values, lost: 4, limits: [])).evidence?.beyond == 4)
    }

    /// pct_under's allowed share is its wrong side: `>=99%` allows 1% not under, `<10%` allows 10% under.
    @Test func aShareOfUnderIsDecidedAgainstItsWrongSide() throws {
        let values = (1...1000).map { UInt64($0) * 1_000 }  // 1µs … 1ms: 999 under 1ms
        let half = (1...1000).map { UInt64($0) * 2_000 }  // 499 under 1ms
        let atLeast = try Threshold(parsing: "pct_under>=99%", defaultMetric: "spread", metrics: ["spread"])
        #expect(atLeast.allowedShare == 0.01)
        #expect(atLeast.evaluate(Self.summary(half, limits: [])).evidence?.decision == .fail, "half under: broken")
        #expect(atLeast.evaluate(Self.summary(values, limits: [])).evidence?.decision == .pass, "1 of 1000 not under")
        let atMost = try Threshold(parsing: "pct_under<10%", defaultMetric: "spread", metrics: ["spread"])
        #expect(atMost.allowedShare == 0.1)
        #expect(atMost.evaluate(Self.summary(half, limits: [])).evidence?.beyond == 499)
        #expect(try Threshold(parsing: "lost>=90%", defaultMetric: "spread", metrics: ["spread"]).allowedShare == 0.1)
    }

    /// The largest limit has nothing over it: no count can be made, and the verdict is as measured (no wrap to 0).
    @Test func theLargestLimitIsJudgedAsMeasured() throws {
        let threshold = try Threshold(parsing: "p99<=18446744073709551615ns", defaultMetric: "spread", metrics: ["spread"])
        #expect(threshold.countedLimit == nil)
        let result = threshold.evaluate(Self.summary([5_000], limits: []))
        #expect(result.held && result.evidence?.decision == .pass)
        // A share too small for a count of values: none, never a trap (log1p keeps 1e-18 exact; 1e-300 overflows).
        #expect(ProportionDecision.valuesToPass(allowedShare: 1e-18, confidence: 0.95).map { $0 > 1 << 60 } == true)
        #expect(ProportionDecision.valuesToPass(allowedShare: 1e-300, confidence: 0.95) == nil)
    }

    @Test func countsMaxAndMeanAreDecidedAsMeasured() throws {
        let summary = Self.summary([5_000, 7_000], limits: [])
        for (text, decision) in [("max<6us", ProportionDecision.Outcome.fail), ("mean<7us", .pass), ("lost==0", .pass)] {
            let result = try Threshold(parsing: text, defaultMetric: "spread", metrics: ["spread"]).evaluate(summary)
            #expect(result.evidence?.decision == decision && result.evidence?.beyond == nil, "\(text)")
        }
    }

    /// A metric with no values at all is no measurement; one whose every message was lost is a breach.
    @Test func noValuesAtAllIsInconclusiveAndAllLostIsABreach() throws {
        let threshold = try Threshold(parsing: "p99<1s", defaultMetric: "spread", metrics: ["spread"])
        let empty = threshold.evaluate(Self.summary([], limits: [1_000_000_000]))
        #expect(empty.verdict == .inconclusive && empty.inconclusive == [.noValues])
        let lost = threshold.evaluate(Self.summary([], lost: 3, limits: [1_000_000_000]))
        #expect(lost.verdict == .breached && lost.evidence?.beyond == 3)
    }

    @Test func aRunsReasonsMakeEveryVerdictInconclusiveButThoseAccepted() throws {
        let result = try Threshold(parsing: "p99<1s", defaultMetric: "spread", metrics: ["spread"])
            .evaluate(Self.summary([1_000], limits: []))
        #expect(result.verdict == .held)
        let saturated = result.judged(in: [.saturated, .interrupted], accepting: [.interrupted])
        #expect(saturated.verdict == .inconclusive && saturated.inconclusive == [.saturated])
        #expect(saturated.inconclusiveLine.hasPrefix("threshold inconclusive: p99<1s on spread (measured 1.0µs, limit 1s"))
        #expect(saturated.inconclusiveLine.hasSuffix("the harness was saturated: it measured itself, under a lighter load than asked"))
        #expect(result.judged(in: [.saturated], accepting: [.saturated]).verdict == .held)
    }
}

/// One duration grammar for people: a threshold's limit takes hours and minutes as `--duration` does, but `m`, which
/// elsewhere is more likely a mistyped `ms`, is refused naming both readings.
@Suite struct ThresholdLongLimitTests {
    @Test(arguments: [("p99<1h", UInt64(3_600_000_000_000)), ("p99<1.5min", 90_000_000_000), ("p99<200ms", 200_000_000)])
    func hoursAndMinutesAreTaken(text: String, nanoseconds: UInt64) throws {
        #expect(try Threshold(parsing: text, defaultMetric: "rtt", metrics: ["rtt"]).limit == .nanoseconds(nanoseconds))
    }

    @Test func aBareMIsRefusedSayingWhy() {
        #expect {
            _ = try Threshold(parsing: "p99<10m", defaultMetric: "rtt", metrics: ["rtt"])
        } throws: { error in
            "\(error)".contains("m is minutes only in --duration: write 10ms, or 10min for minutes")
        }
    }
}
