import BenchCore
import Testing

/// A capacity step's runs pooled: objectives on a share decided from the counts of all runs, the others as measured.
@Suite struct StepJudgementTests {
    /// A run's verdict on `spread.p99<2ms`: `beyond` of `values` over the limit.
    static func p99(beyond: Int, of values: Int) -> ThresholdResult {
        ThresholdResult(
            expression: "spread.p99<2ms", metric: "spread", statistic: "p99", comparison: "<", limitText: "2ms",
            measuredText: "1ms", held: beyond * 100 < values,
            evidence: .init(values: values, beyond: beyond, allowedShare: 0.01, decision: .undecided))
    }

    static func max(held: Bool) -> ThresholdResult {
        ThresholdResult(
            expression: "spread.max<5ms", metric: "spread", statistic: "max", comparison: "<", limitText: "5ms",
            measuredText: "1ms", held: held, evidence: .init(values: 30, decision: held ? .pass : .fail))
    }

    @Test func runsOfThirtyArePooledUntilAP99IsDecided() {
        var judgement = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95)
        for run in 1...9 {
            judgement.add([Self.p99(beyond: 0, of: 30)])
            #expect(judgement.verdict == .undecided, "run \(run): \(30 * run) values cannot decide a p99")
        }
        judgement.add([Self.p99(beyond: 0, of: 30)])
        #expect(judgement.verdict == .pass && judgement.runs == 10, "300 values with none over")
        #expect(judgement.objectives[0].values == 300 && judgement.objectives[0].beyond == 0)
    }

    /// One slow broadcast in a run of 30 (its p99 is that broadcast) fails nothing: more runs decide.
    @Test func oneSlowBroadcastDecidesNothingAndMoreRunsDo() {
        var judgement = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95)
        judgement.add([Self.p99(beyond: 1, of: 30)])
        #expect(judgement.verdict == .undecided)
        for _ in 1...15 { judgement.add([Self.p99(beyond: 0, of: 30)]) }
        #expect(judgement.verdict == .pass, "1 of 480")
    }

    @Test func aStepFailsAsSoonAsOneObjectiveIsDecidedBroken() {
        var judgement = StepJudgement(objectives: ["spread.p99<2ms", "spread.max<5ms"], confidence: 0.95)
        judgement.add([Self.p99(beyond: 0, of: 400), Self.max(held: true)])
        #expect(judgement.verdict == .pass)
        judgement.add([Self.p99(beyond: 0, of: 400), Self.max(held: false)])
        #expect(judgement.verdict == .fail, "a max broken in any run")
        var broken = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95)
        broken.add([Self.p99(beyond: 3, of: 30)])
        #expect(broken.verdict == .fail)
    }

    /// A step that only finds the search's way passes with less confidence (138 values with none over at 75%); a
    /// failure is decided with the full confidence whatever the pass's is, and a pass at 75% is no pass at 95%.
    @Test func aWayFindingStepPassesSoonerAndFailsOnlyAtTheFullConfidence() {
        var finding = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95, passConfidence: 0.75)
        finding.add([Self.p99(beyond: 0, of: 137)])
        #expect(finding.verdict == .undecided)
        finding.add([Self.p99(beyond: 0, of: 1)])
        #expect(finding.verdict == .pass, "138 values with none over: 0.99^138 < 0.25")
        var deciding = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95)
        deciding.add([Self.p99(beyond: 0, of: 138)])
        #expect(deciding.verdict == .undecided)
        // 2 of 40 over: a failure at 75% (P(X ≥ 2) = 0.061), not at 95%: undecided, not failed.
        var doubtful = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95, passConfidence: 0.75)
        doubtful.add([Self.p99(beyond: 2, of: 40)])
        #expect(doubtful.verdict == .undecided)
        #expect(ProportionDecision.decide(beyond: 2, of: 40, allowedShare: 0.01, confidence: 0.75) == .fail)
        doubtful.add([Self.p99(beyond: 1, of: 10)])
        #expect(doubtful.verdict == .fail, "3 of 50: P(X ≥ 3) = 0.014")
        // The pass's confidence is never above the judgement's.
        #expect(StepJudgement(objectives: [], confidence: 0.9, passConfidence: 0.99).passConfidence == 0.9)
    }

    @Test func aRunWithNoValuesDecidesNothing() {
        var judgement = StepJudgement(objectives: ["spread.max<5ms"], confidence: 0.95)
        judgement.add([Self.max(held: false).judged(in: [.noValues], accepting: [])])
        #expect(judgement.verdict == .undecided)
    }

    /// A confirmation of a relay's 2,000 subscribers (a broadcast every 200 ms, a minute's budget) had 47 spread values
    /// past its warmup, none over the limit, when a sixth of its timetable had passed: projected to its end, 282 of the
    /// 299 a p99 needs at 95%. The run stopped as futile, the step was read as undecided, and the search took the value
    /// for a dispute. Values with none beyond the limit only ever need more of the same: the run samples on.
    @Test func aConfirmationWithNoValueBeyondItsLimitSamplesOnToItsConfidence() {
        let second: UInt64 = 1_000_000_000
        var confirming = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95)
        confirming.add([Self.p99(beyond: 0, of: 47)])
        #expect(confirming.samplingStop(elapsed: 10 * second, ownLength: 4 * second, length: 60 * second, mayGiveUp: true)
            == .goOn)
        var decided = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95)
        decided.add([Self.p99(beyond: 0, of: 299)])
        #expect(decided.samplingStop(elapsed: 60 * second, ownLength: 4 * second, length: 61 * second, mayGiveUp: true)
            == .decided)
        // Not before the run the user described, however soon it is decided.
        #expect(decided.samplingStop(elapsed: 3 * second, ownLength: 4 * second, length: 61 * second, mayGiveUp: true)
            == .goOn)
    }

    /// A p99 at its limit (1 value in 100 beyond it) is undecided whatever the budget: the run gives up once a sixth of
    /// its timetable has passed, but not at the search's low end, whose undecided step would end the search.
    @Test func aStepAtItsLimitIsGivenUpAsFutileExceptAtTheLowEnd() {
        let second: UInt64 = 1_000_000_000
        var atLimit = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95)
        atLimit.add([Self.p99(beyond: 3, of: 300)])
        #expect(atLimit.samplingStop(elapsed: 10 * second, ownLength: 4 * second, length: 60 * second, mayGiveUp: true)
            == .futile)
        #expect(atLimit.samplingStop(elapsed: 10 * second, ownLength: 4 * second, length: 60 * second, mayGiveUp: false)
            == .goOn)
        // Too soon to tell: neither a sixth of the timetable nor the values a pass needs.
        var early = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95)
        early.add([Self.p99(beyond: 1, of: 100)])
        #expect(early.samplingStop(elapsed: 5 * second, ownLength: 4 * second, length: 60 * second, mayGiveUp: true)
            == .goOn)
        // A failure decided ends the run as decided.
        var broken = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95)
        broken.add([Self.p99(beyond: 5, of: 50)])
        #expect(broken.samplingStop(elapsed: 5 * second, ownLength: 4 * second, length: 60 * second, mayGiveUp: true)
            == .decided)
    }
}
