/// What the runs of one capacity step showed of its objectives, pooled run by run until the step is decided.
///
/// An objective on a share of the values (a percentile, `pct_under`, `lost` in percent) is decided from all the values
/// of all the step's runs: the counts beyond its limit summed, binomial against the share it allows
/// (``ProportionDecision``), so a step of 30 broadcasts a run whose one slow broadcast decided nothing runs again
/// until the counts decide. An objective on a statistic that is no share (max, min, mean, a count of lost) is judged
/// as measured in each run: broken in one, it fails; held in all, it passes.
public struct StepJudgement: Sendable {
    /// One objective's evidence so far.
    public struct Objective: Sendable, Equatable {
        /// The expression, as written.
        public let expression: String
        /// Values judged, over the runs.
        public private(set) var values = 0
        /// Values beyond the limit, over the runs; nil for an objective that is no share of the values.
        public private(set) var beyond: Int?
        /// The share of the values allowed beyond the limit.
        public private(set) var allowedShare: Double?
        /// Runs in which the objective, judged as measured, broke.
        public private(set) var brokenRuns = 0
        /// Runs that gave it no values (nothing sent for its metric): they decide nothing.
        public private(set) var emptyRuns = 0
        public private(set) var runs = 0
        /// What the runs so far decide, with the judgement's confidence: worked out once a run, as reports read it
        /// many times (a pooled binomial of millions of values is not free).
        public private(set) var decision = ProportionDecision.Outcome.undecided

        init(expression: String) {
            self.expression = expression
        }

        mutating func add(_ result: ThresholdResult, confidence: Double, passConfidence: Double) {
            defer { decision = deciding(confidence: confidence, passConfidence: passConfidence) }
            runs += 1
            guard result.inconclusive.isEmpty else {
                emptyRuns += 1
                return
            }
            values += result.evidence?.values ?? 0
            if let evidence = result.evidence, let counted = evidence.beyond, let share = evidence.allowedShare {
                beyond = (beyond ?? 0) + counted
                allowedShare = share
            } else if !result.held {
                brokenRuns += 1
            }
        }

        /// Pass (at `passConfidence`), fail (at `confidence`) or undecided.
        private func deciding(confidence: Double, passConfidence: Double) -> ProportionDecision.Outcome {
            if brokenRuns > 0 { return .fail }
            if let beyond, let allowedShare {
                return ProportionDecision.decide(
                    beyond: beyond, of: values, allowedShare: allowedShare, confidence: confidence,
                    passConfidence: passConfidence)
            }
            return runs > emptyRuns ? .pass : .undecided
        }
    }

    public private(set) var objectives: [Objective]
    /// Runs added.
    public private(set) var runs = 0
    /// The confidence each objective is decided with (0.95).
    public let confidence: Double
    /// The confidence a pass is decided with: ``confidence``, or less for a step that only finds the search's way.
    public let passConfidence: Double

    /// A judgement deciding failures at `confidence` and passes at `passConfidence` (at most `confidence`; the same
    /// when nil).
    public init(objectives: [String], confidence: Double, passConfidence: Double? = nil) {
        self.objectives = objectives.map(Objective.init(expression:))
        self.confidence = confidence
        self.passConfidence = min(passConfidence ?? confidence, confidence)
    }

    /// Adds one run's verdicts on the objectives, in their order.
    public mutating func add(_ results: [ThresholdResult]) {
        precondition(results.count == objectives.count, "one verdict per objective")
        runs += 1
        for index in objectives.indices {
            objectives[index].add(results[index], confidence: confidence, passConfidence: passConfidence)
        }
    }

    /// The step's verdict so far: fail as soon as an objective is decided broken, pass once every one is decided
    /// held, else undecided.
    public var verdict: CapacitySearch.Verdict {
        let decisions = objectives.map(\.decision)
        if decisions.contains(.fail) { return .fail }
        return decisions.allSatisfy { $0 == .pass } ? .pass : .undecided
    }
}
