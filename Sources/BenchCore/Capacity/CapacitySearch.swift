/// The search of `bench capacity`: the hardest value of one setting (clients, payload, a shorter interval) at which a
/// server still meets its objective, found in as few steps as it takes, each step decided with a stated confidence.
///
/// As MLPerf's LoadGen does, it brackets first, from the easy end: each step twice as hard as the last (half the
/// interval), until one does not pass or the hard end holds; then it bisects between the last pass and the first step
/// that did not pass until they are within the resolution. A step's verdict is a decision (``StepJudgement``): pass,
/// fail, or undecided when its budget ran out first; an undecided step is not a pass, so the search stays below it,
/// but it bounds nothing: the capacity's interval reaches up to the first decided failure. The two steps that decide
/// the answer (the last pass and the first failure) are then run again, at another moment, since a machine's drift
/// between runs is invisible inside one: a value whose second step disagrees with its first is not confirmed, and the
/// search confirms a pass at least ``disputeMargin`` below it (no further bisection: the values between sit where the
/// objective is at its limit, each disputed in turn), after one way-finding step at that margin when the pass below
/// is further off (doubling leaves gaps: 40 below a disputed 80; a way-finding step that does not pass is confirmed,
/// not bisected below). A lone dispute is then refined: the value halfway between it and the confirmed pass, until
/// they are within ``refinementMargin``, as long as no second dispute appears. The
/// first step at a value only finds the way, and the command decides its pass with less confidence than the second,
/// which gives the answer (every failure is decided with the full confidence). A step whose harness was saturated
/// (the command runs a saturated step again after a pause, and calls it harness-bound only when the saturation
/// repeats) ends the search once the last pass is confirmed: the server held at least that, and no harder step would
/// measure the server. A pure value: the command runs the steps and ``record(_:_:)``s their verdicts.
public struct CapacitySearch: Sendable {
    /// Which way the setting gets harder.
    public enum Direction: Sendable {
        /// More is harder: clients, payload.
        case increasing
        /// Less is harder: the interval between sends.
        case decreasing
    }

    /// What a step (all its runs) showed.
    public enum Verdict: String, Sendable, Equatable {
        /// Every objective was decided held.
        case pass
        /// An objective was decided broken while the harness kept up: the server's failure.
        case fail
        /// No objective was decided broken, but not every one was decided held within the step's budget.
        case undecided
        /// The harness was saturated: not a measurement of the server, and the search stops.
        case harnessBound = "harness-bound"

        /// A value's verdict from all its steps: a pass and a failure disagree, and leave it undecided (neither the
        /// pass nor the failure is confirmed); else a failure fails it; else a harness-bound step makes it
        /// harness-bound; else a pass decided last, at the full confidence, after steps that decided nothing, passes it
        /// (an undecided step is no evidence against: a busy moment, since passed); else one undecided step leaves it
        /// undecided (a pass not confirmed); else it passed.
        public static func combining(_ steps: [Verdict]) -> Verdict {
            if steps.contains(.fail) && steps.contains(.pass) { return .undecided }
            if steps.contains(.fail) { return .fail }
            if steps.contains(.harnessBound) { return .harnessBound }
            if steps.count >= 2 && steps.last == .pass { return .pass }
            return steps.contains(.undecided) ? .undecided : .pass
        }
    }

    /// How the search ended.
    public enum Ending: String, Sendable, Equatable {
        /// Bisected to the resolution and confirmed: the capacity lies between the last pass and the first failure.
        case found
        /// Even the easy end did not pass (it broke the objective, or could not be decided).
        case lowEndFails = "low-end-fails"
        /// The hard end held: the capacity is at least that.
        case highEndHolds = "high-end-holds"
        /// The harness could not go harder (saturated): the capacity is at least the last pass.
        case harnessBound = "harness-bound"
        /// The most steps a search takes ran first.
        case stepLimit = "step-limit"
    }

    public let low: UInt64
    public let high: UInt64
    public let direction: Direction
    /// How close the last pass and the first fail must be, as a fraction of the last pass (0.02: 2%).
    public let resolution: Double
    /// The most steps run, confirmations included.
    public let maximumSteps: Int
    /// Every step so far, in order (a value run again to confirm it appears twice).
    public private(set) var steps: [(value: UInt64, verdict: Verdict)] = []

    /// A search from `low` (the easy end) to `high` (the hard end), in either order of size.
    public init(low: UInt64, high: UInt64, direction: Direction, resolution: Double = 0.02, maximumSteps: Int = 40) {
        self.low = low
        self.high = high
        self.direction = direction
        self.resolution = resolution
        self.maximumSteps = maximumSteps
    }

    /// True when `a` is harder than `b`.
    public func isHarder(_ a: UInt64, than b: UInt64) -> Bool { direction == .increasing ? a > b : a < b }

    /// Each value tried, with the verdict of all its steps.
    public var verdicts: [UInt64: Verdict] {
        Dictionary(grouping: steps, by: \.value).mapValues { Verdict.combining($0.map(\.verdict)) }
    }

    /// The hardest value that passed.
    public var lastPass: UInt64? { hardest(values(.pass)) }
    /// The easiest value that did not pass (failed, undecided, or harness-bound).
    public var firstFail: UInt64? { easiest(verdicts.filter { $0.value != .pass }.map(\.key)) }
    /// The easiest value decided to fail: the capacity lies below it.
    public var firstDecidedFail: UInt64? { easiest(values(.fail)) }

    /// The capacity: the hardest pass easier than every value that did not pass (nil when the easy end did not pass).
    /// Below a disputed value (a pass its confirmation did not repeat), a pass not yet confirmed counts only when it is
    /// at least ``disputeMargin`` easier: those closer sit in the same band, where the objective is at its limit.
    public var capacity: UInt64? {
        guard let firstFail else { return lastPass }
        let passes = values(.pass).filter { isHarder(firstFail, than: $0) }
        guard isDisputed(firstFail) else { return hardest(passes) }
        let margin = marginBelow(firstFail)
        // None so far below the margin (the easy end is within it): the hardest pass, confirmed in turn.
        return hardest(passes.filter { !isHarder($0, than: margin) || confirming($0) == nil }) ?? hardest(passes)
    }

    /// How much easier than a disputed value the next pass to confirm must be, unless already confirmed (10%).
    public static let disputeMargin = 0.1

    /// True when `value` ran twice and was neither passed nor failed by both: disputed, or undecided again.
    private func isDisputed(_ value: UInt64) -> Bool {
        confirming(value) == nil && verdicts[value] == .undecided
    }

    /// ``disputeMargin`` easier than `value` (at least one).
    private func marginBelow(_ value: UInt64) -> UInt64 {
        let step = max(1, UInt64(min((Double(value) * Self.disputeMargin).rounded(.up), Double(UInt64.max / 2))))
        return direction == .increasing ? value - min(value, step) : (value > .max - step ? .max : value + step)
    }

    /// The hardest value the capacity may be, from what was decided: just easier than the first decided failure
    /// harder than the capacity; nil when none was decided (the capacity is at least ``capacity``).
    public var capacityBound: UInt64? {
        guard let capacity else { return nil }
        guard let failure = easiest(values(.fail).filter { isHarder($0, than: capacity) }) else { return nil }
        return direction == .increasing ? failure - 1 : failure + 1
    }

    /// True when a step passed that is harder than one that did not: results were not monotonic, and the capacity is
    /// bounded by the lowest failure.
    public var isNonMonotonic: Bool {
        guard let firstFail, let lastPass else { return false }
        return isHarder(lastPass, than: firstFail)
    }

    /// True when `value` was run again to confirm it.
    public func isConfirmation(at index: Int) -> Bool {
        steps[..<index].contains { $0.value == steps[index].value }
    }

    /// How the search ended; nil while it goes on.
    public var ending: Ending? { nextValue() == nil ? endingOnceOver() : nil }

    /// The value to try next; nil once the search is over.
    public func nextValue() -> UInt64? {
        guard steps.count < maximumSteps else { return nil }
        guard !steps.isEmpty else { return low }
        // The harness can go no harder: the last pass, its lower end, is still confirmed (its first step may have
        // passed at the way-finding confidence alone), at a load the harness carried.
        if steps.contains(where: { $0.verdict == .harnessBound }) { return capacity.flatMap(confirming) }
        // Not monotonic (a harder value passed after easier ones decided nothing): the machine may have been busy at
        // the easier ones. They are sampled again, the easiest first, before anything is answered from them.
        if let again = resampling() { return again }
        guard let pass = capacity else { return nil }  // the easy end did not pass
        guard let failure = firstFail else {
            // Bracketing: twice as hard, up to the hard end, which is then confirmed.
            guard pass != high else { return confirming(pass) }
            let doubled = harder(than: pass)
            return doubled == pass ? nil : doubled
        }
        // A first failure already run twice is a pass its confirmation disputed: the values just easier than it sit
        // in the same band where the objective is at its limit, which no budget decides; bisecting there would find
        // more disputes, so the search confirms the pass ``capacity`` names, a margin below it, instead. A way-finding
        // step whose failure was decided twice is out of the band: the search bisects down to it as to any failure
        // (issue 62: 144 failed twice below a disputed 160, and the answer stayed at 80, the pass doubling had left).
        let decidedBelowBand = isWayFinding(failure) && verdicts[failure] == .fail && confirming(failure) == nil
        guard isNarrowed(pass: pass, fail: failure)
            || ((confirming(failure) == nil || isWayFinding(failure)) && !decidedBelowBand)
        else {
            let middle = min(pass, failure) + (max(pass, failure) - min(pass, failure)) / 2
            return steps.contains { $0.value == middle } ? nil : middle
        }
        // A pass far below a disputed value (doubling went 40 to 80, and 80 was disputed) is not the answer before the
        // value a margin below the dispute has found the way: the band's edge may lie anywhere between. A way-finding
        // step that did not pass is in the band too: it is confirmed (and if disputed, finds the way in turn), not
        // bisected below.
        if isDisputed(failure),
            let between = untried(marginBelow(failure)), isHarder(between, than: pass), !isNarrowed(pass: pass, fail: between)
        {
            return between
        }
        // Bisected: the last pass and the first step that did not pass (failed or undecided) are run once more,
        // each: a second run at another moment may decide what the first left open.
        if let next = confirming(pass) { return next }
        if let next = confirming(failure) { return next }
        if let next = refinement(below: failure, pass: pass) { return next }
        // No failure decided, so the capacity's interval has no upper end: one step twice as hard as the first that
        // did not pass (up to the hard end) may bound it.
        guard firstDecidedFail == nil else { return nil }
        let bound = harder(than: failure)
        return bound == failure || steps.contains(where: { $0.value == bound }) ? nil : bound
    }

    /// The most steps a value takes: its first, its confirmation, and one more when the evidence was not monotonic.
    public static let mostStepsAtAValue = 3

    /// The easiest value whose steps decided nothing (every one undecided) though a harder one passed where no failure
    /// was decided anywhere (the step twice as hard that bounds an undecided one passed: issue 62's 18 and 20 clients
    /// undecided while the machine was busy, then 36 passed), and that has run fewer than ``mostStepsAtAValue``
    /// steps; nil otherwise. A band where a first step passes and its confirmation does not is no such evidence: the
    /// dispute rules handle it, and a failure decided above it bounds the answer.
    private func resampling() -> UInt64? {
        guard isNonMonotonic, firstDecidedFail == nil, let lastPass else { return nil }
        let decidedSomewhere = Set(steps.filter { $0.verdict != .undecided }.map(\.value))
        let disputed = verdicts.filter { $0.value == .undecided && !decidedSomewhere.contains($0.key) }.map(\.key).filter { value in
            isHarder(lastPass, than: value) && steps.filter { $0.value == value }.count < Self.mostStepsAtAValue
        }
        return easiest(disputed)
    }

    /// How close below a lone dispute the answer is brought (5%): half the margin the dispute sent the search down.
    public static let refinementMargin = disputeMargin / 2

    /// A lone dispute (the only value harder than the confirmed `pass` whose confirmation did not repeat its pass) more
    /// than ``refinementMargin`` above it: the value halfway between, or its confirmation after a first pass; nil
    /// otherwise. One dispute on a steady machine says the limit lies just below it, and the margin alone left the
    /// answer 10% under it (issue 62: a relay whose limit was near 1,400 answered 1,260); a halfway value that does
    /// not pass is bisected towards the pass as any first failure is, and a second dispute (a band where the objective
    /// sits at its limit, or a busy machine) ends the refinement.
    private func refinement(below failure: UInt64, pass: UInt64) -> UInt64? {
        guard isDisputed(failure), disputed.allSatisfy({ $0 == failure || !isHarder($0, than: pass) }) else { return nil }
        let gap = max(pass, failure) - min(pass, failure)
        guard gap > 1, Double(gap) > Self.refinementMargin * Double(max(pass, failure)) else { return nil }
        let middle = min(pass, failure) + gap / 2
        let runs = steps.filter { $0.value == middle }
        if runs.isEmpty { return middle }
        return runs.count == 1 && runs[0].verdict == .pass ? middle : nil
    }

    /// Twice as hard as `value` (half the interval), at most the hard end.
    private func harder(than value: UInt64) -> UInt64 {
        direction == .increasing ? (value > UInt64.max / 2 ? high : min(high, 2 * value)) : max(high, value / 2)
    }

    /// The values run twice and neither passed nor failed by both.
    private var disputed: [UInt64] { verdicts.keys.filter(isDisputed) }

    /// True when `value` is the way-finding step a margin below a disputed value.
    private func isWayFinding(_ value: UInt64) -> Bool {
        disputed.contains { marginBelow($0) == value }
    }

    /// `value` when no step has run it.
    private func untried(_ value: UInt64) -> UInt64? {
        steps.contains { $0.value == value } ? nil : value
    }

    /// `value` when it has been run only once: its confirmation is due.
    private func confirming(_ value: UInt64) -> UInt64? {
        steps.filter { $0.value == value }.count < 2 ? value : nil
    }

    /// Records the verdict of the step at `value`.
    public mutating func record(_ value: UInt64, _ verdict: Verdict) {
        steps.append((value, verdict))
    }

    private func endingOnceOver() -> Ending {
        // Harness-bound where the search stopped going harder; one past an answer already found (the step that would
        // bound its interval) leaves that answer as it is.
        if let bound = steps.first(where: { $0.verdict == .harnessBound })?.value, bound == firstFail {
            return .harnessBound
        }
        if capacity == nil { return .lowEndFails }
        guard let failure = firstFail, let pass = capacity else {
            return verdicts[high] == .pass && confirming(high) == nil ? .highEndHolds : .stepLimit
        }
        let confirmed = confirming(pass) == nil && confirming(failure) == nil
        return steps.count < maximumSteps || (isNarrowed(pass: pass, fail: failure) && confirmed) ? .found : .stepLimit
    }

    /// True when `pass` and `fail` are within the resolution of `pass` (or next to each other): bisection is done.
    private func isNarrowed(pass: UInt64, fail: UInt64) -> Bool {
        let gap = max(pass, fail) - min(pass, fail)
        return gap <= 1 || Double(gap) <= resolution * Double(pass)
    }

    private func values(_ verdict: Verdict) -> [UInt64] {
        verdicts.filter { $0.value == verdict }.map(\.key)
    }

    private func hardest(_ values: [UInt64]) -> UInt64? {
        direction == .increasing ? values.max() : values.min()
    }

    private func easiest(_ values: [UInt64]) -> UInt64? {
        direction == .increasing ? values.min() : values.max()
    }
}
