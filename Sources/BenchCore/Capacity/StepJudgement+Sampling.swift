/// When a capacity step's run, which samples on its connections until its objectives are decided, stops: one rule, at
/// the confidences the step is judged by, so that the run never ends "decided" on a judgement the step then reads as
/// undecided.
extension StepJudgement {
    /// What the run should do now.
    public enum SamplingStop: Sendable, Equatable {
        /// Sample on.
        case goOn
        /// Every objective is decided (held, or one broken): the step's verdict is this judgement's.
        case decided
        /// Near the capacity a percentile sits at its limit and no budget decides it: at the rate its values came,
        /// even twice the values its budget would give, in the proportions seen, would leave it undecided.
        case futile
    }

    /// How much the values a budget is projected to give are stretched before a step is given up as futile: a run's
    /// first values come late (its warmup, the messages in flight), and its rate is read on a few seconds, so a
    /// projection of exactly the values needed would give up a step that needed only to go on (a p99 with none over,
    /// 282 of the 299 values it needs projected).
    public static let futilityMargin = 2.0

    /// Whether a run that has sampled for `elapsed` (ns since its first send) of its timetable's `length` stops, with
    /// this judgement holding the step's runs so far and this run's values: decided as soon as the step's verdict is
    /// (not before `ownLength`, the run the user described); futile only where `mayGiveUp` (a step whose undecided
    /// verdict leaves the search somewhere to go: not its low end), once a sixth of the length has passed or every
    /// undecided objective holds as many values as its pass needs, and an objective with no value beyond its limit is
    /// never futile while the length could still decide it.
    public func samplingStop(elapsed: UInt64, ownLength: UInt64, length: UInt64, mayGiveUp: Bool) -> SamplingStop {
        guard elapsed >= ownLength else { return .goOn }
        if verdict != .undecided { return .decided }
        guard mayGiveUp, elapsed > 0 else { return .goOn }
        let enough = objectives.allSatisfy { objective in
            guard objective.decision == .undecided else { return true }
            guard let share = objective.allowedShare,
                let needed = ProportionDecision.valuesToPass(allowedShare: share, confidence: passConfidence)
            else { return false }
            return objective.values >= needed
        }
        guard elapsed >= length / 6 || enough else { return .goOn }
        let scale = Swift.max(1, Double(length) / Double(elapsed)) * Self.futilityMargin
        let futile = objectives.contains { objective in
            guard objective.decision == .undecided, let beyond = objective.beyond, let share = objective.allowedShare
            else { return false }
            let projected = ProportionDecision.decide(
                beyond: Int((Double(beyond) * scale).rounded()), of: Int((Double(objective.values) * scale).rounded()),
                allowedShare: share, confidence: confidence, passConfidence: passConfidence)
            return projected == .undecided
        }
        return futile ? .futile : .goOn
    }

}
