import BenchClients
import BenchCore
import BenchNet
import BenchReports
import BenchScenarios
import Synchronization

/// What a step's sampling run ended on, when it ended before its budget: decided, or given up as futile.
final class StepSampling: Sendable {
    /// True when the run stopped because, at the rate its values came, its budget would not decide it either.
    let gaveUp = Atomic<Bool>(false)
}

/// A capacity step samples until it is decided, on the connections it has: its run goes on past its timetable, up
/// to the step's budget, and ends as soon as its objectives are decided (a sequential decision, as LoadGen's early
/// stopping is), rather than a new run being started, connected and warmed up for every few more values.
extension CapacityPlan {
    /// `options` made to sample until decided, when its run is open loop (a closed loop's length is its count: its
    /// step repeats whole runs); `stepStart` is when the step began, for a budget in time. Its timetable runs for the
    /// budget (a number of runs: that many of its own lengths), at least its own length, and at least as long as its
    /// pass needs to be decided at its confidence (a sampling budget that cannot decide is no budget). The decision
    /// pools what
    /// it collects with the step's runs before it (`pooledWith`: each one's results, an objective each), at the
    /// confidences the step is judged by (``StepJudgement/samplingStop(elapsed:ownLength:length:mayGiveUp:)``: one
    /// rule for the run and the step). Futility ends it too, where `mayGiveUp` (not at the search's low end, whose
    /// undecided verdict would end the search): a step whose values, projected at the rate they came to the budget's
    /// end and doubled, in the proportions seen, would still be undecided stops (its samples' `gaveUp`) — near the true
    /// capacity a p99 sits at its limit, and no budget decides it. Judged on enough values, not on time alone: one
    /// early outlier among too few values once stopped an easy step.
    func sampling(
        _ options: RunOptions, stepStart: UInt64, pooledWith earlier: [[ThresholdResult]], passConfidence: Double,
        mayGiveUp: Bool
    ) -> (options: RunOptions, samples: StepSampling?) {
        var options = options
        var configuration = options.steps[0].configuration
        guard configuration.interval > 0 else { return (options, nil) }
        let ownLength = configuration.duration
            ?? UInt64(configuration.sequencesPerClient).multipliedClamped(by: configuration.interval)
        // What is left of the step's budget (a number of runs: that many of its own lengths from the step's start).
        let total: UInt64
        switch stepBudget {
        case .runs(let runs): total = UInt64(runs).multipliedClamped(by: ownLength)
        case .time(let time): total = time
        }
        let budget = total.subtractingClamped(MonotonicClock.now() - stepStart)
        // At least its own length, twice its warmup (a warmup may take at most half of a timed run), and long enough
        // for its pass to be decided at the confidence it is judged by: every metric gives at least one value a row
        // of the timetable, so that many rows after the warmup decide a pass with none beyond the limit (a p99 at 95%:
        // 299). A budget shorter than that could only end a step with no value beyond its limit undecided.
        let rowsToPass = options.thresholds.compactMap { threshold in
            threshold.allowedShare.flatMap { ProportionDecision.valuesToPass(allowedShare: $0, confidence: passConfidence) }
        }.max() ?? 0
        let toDecide = UInt64(rowsToPass + configuration.warmup).multipliedClamped(by: configuration.interval)
        let length = min(
            max(ownLength, budget, toDecide, (2 * UInt64(configuration.warmup)).multipliedClamped(by: configuration.interval)),
            RunConfiguration.Limits.longestRun)
        configuration.duration = length
        let samples = StepSampling()
        options.steps[0].configuration = configuration
        let streamed = options.thresholds.indices.filter { index in
            RunAnalysis.Metric(rawValue: options.thresholds[index].metric)?.isStreamed ?? false
        }
        let judged = streamed.map { options.thresholds[$0] }
        let earlierJudged = earlier.map { results in streamed.map { results[$0] } }
        let confidence = self.confidence
        options.isDecided = { collector in
            // Not before its own length (a step is at least the run the user described), and not once its timetable has
            // ended (the rest is messages in flight getting their timeout: the run used its whole length).
            let now = MonotonicClock.now()
            guard collector.origin != 0, now >= collector.origin &+ ownLength, now < collector.origin &+ length else {
                return false
            }
            var judgement = StepJudgement(
                objectives: judged.map(\.expression), confidence: confidence, passConfidence: passConfidence)
            for results in earlierJudged { judgement.add(results) }
            judgement.add(judged.map { threshold in
                let metric = RunAnalysis.Metric(rawValue: threshold.metric)!
                let summary = collector.summarySoFar(
                    of: metric, percentiles: threshold.statistic.percentile.map { [$0] } ?? [],
                    limits: threshold.countedLimit.map { [$0] } ?? [])!
                return threshold.evaluate(summary, confidence: confidence)
            })
            switch judgement.samplingStop(elapsed: now - collector.origin, ownLength: ownLength, length: length, mayGiveUp: mayGiveUp) {
            case .goOn: return false
            case .decided: return true
            case .futile:
                samples.gaveUp.store(true, ordering: .relaxed)
                return true
            }
        }
        return (options, samples)
    }

    /// How a step is sized from its `objectives`, for the search's first line: `spread.p99<2ms` passes with no
    /// value beyond its limit in 138 values on a value's first step (75%), in 299 on its confirmation (95%).
    func sizing(_ objectives: [Threshold]) -> String {
        let finding = wayFindingPassConfidence < confidence
        let needs = objectives.compactMap { threshold -> String? in
            guard let share = threshold.allowedShare,
                let values = ProportionDecision.valuesToPass(allowedShare: share, confidence: confidence),
                let first = ProportionDecision.valuesToPass(allowedShare: share, confidence: wayFindingPassConfidence)
            else { return nil }
            return "\(threshold.expression) passes with none beyond its limit in "
                + (finding ? "\(first) values, then \(values)" : "\(values) values")
        }
        let budget: String
        switch stepBudget {
        case .runs(let runs): budget = "\(runs) run\(runs == 1 ? "" : "s")' length"
        case .time(let time): budget = DurationText.format(time)
        }
        func percent(_ share: Double) -> String { "\(DecimalText.trimmed(share * 100, fractionDigits: 1))%" }
        let confidences = finding
            ? "a value's first step passes at \(percent(wayFindingPassConfidence)) confidence, its confirmation and every "
                + "failure are decided at \(percent(confidence))"
            : "decided at \(percent(confidence)) confidence"
        return "each step sends until its objectives are decided, for at most \(budget): \(confidences)"
            + (needs.isEmpty ? "" : " (" + needs.joined(separator: "; ") + ")")
    }
}
