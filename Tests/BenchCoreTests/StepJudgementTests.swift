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

    @Test func aRunWithNoValuesDecidesNothing() {
        var judgement = StepJudgement(objectives: ["spread.max<5ms"], confidence: 0.95)
        judgement.add([Self.max(held: false).judged(in: [.noValues], accepting: [])])
        #expect(judgement.verdict == .undecided)
    }
}
