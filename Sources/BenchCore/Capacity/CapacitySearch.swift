/// The search of `bench capacity`: the hardest value of one setting (clients, payload, a shorter interval) at which a
/// server still meets its objective, found in as few runs as it takes.
///
/// As MLPerf's LoadGen does, it brackets first, from the easy end: each step twice as hard as the last (half the
/// interval), until one fails or the hard end holds; then it bisects between the last pass and the first fail until
/// they are within the resolution. A step whose failure was the harness's own (it was saturated) ends the search:
/// the server held at least the last pass, and no harder step would measure the server. A pure value: the command
/// runs the steps and ``record(_:_:)``s their verdicts.
public struct CapacitySearch: Sendable {
    /// Which way the setting gets harder.
    public enum Direction: Sendable {
        /// More is harder: clients, payload.
        case increasing
        /// Less is harder: the interval between sends.
        case decreasing
    }

    /// What a step (all its repeats) showed.
    public enum Verdict: String, Sendable, Equatable {
        /// Every objective held.
        case pass
        /// An objective broke while the harness kept up: the server's.
        case fail
        /// An objective broke while the harness was saturated: not the server's failure, and the search stops.
        case harnessBound = "harness-bound"

        /// A step's verdict from its repeats': any server failure fails it; else any harness-bound repeat makes it
        /// harness-bound; else it passes.
        public static func combining(_ repeats: [Verdict]) -> Verdict {
            if repeats.contains(.fail) { return .fail }
            return repeats.contains(.harnessBound) ? .harnessBound : .pass
        }
    }

    /// How the search ended.
    public enum Ending: String, Sendable, Equatable {
        /// Bisected to the resolution: the capacity lies between the last pass and the first fail.
        case found
        /// Even the easy end broke the objective.
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
    /// The most distinct values tried.
    public let maximumSteps: Int
    /// Every step so far, in order.
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

    /// The hardest value that passed.
    public var lastPass: UInt64? { hardest(steps.filter { $0.verdict == .pass }.map(\.value)) }
    /// The easiest value that did not pass (failed, or was harness-bound).
    public var firstFail: UInt64? { easiest(steps.filter { $0.verdict != .pass }.map(\.value)) }

    /// The capacity: the hardest pass easier than every failure (nil when the easy end failed).
    public var capacity: UInt64? {
        guard let firstFail else { return lastPass }
        return hardest(steps.filter { $0.verdict == .pass && isHarder(firstFail, than: $0.value) }.map(\.value))
    }

    /// True when a step passed that is harder than one that failed: results were not monotonic, and the capacity is
    /// bounded by the lowest failure.
    public var isNonMonotonic: Bool {
        guard let firstFail, let lastPass else { return false }
        return isHarder(lastPass, than: firstFail)
    }

    /// How the search ended; nil while it goes on.
    public var ending: Ending? { nextValue() == nil ? endingOnceOver() : nil }

    /// The value to try next; nil once the search is over.
    public func nextValue() -> UInt64? {
        guard steps.count < maximumSteps else { return nil }
        guard let last = steps.last else { return low }
        if steps.contains(where: { $0.verdict == .harnessBound }) { return nil }
        guard let lastPass = capacity else { return nil }  // the easy end failed
        guard let failure = firstFail else {
            // Bracketing: twice as hard, up to the hard end.
            guard last.value != high else { return nil }
            let doubled = direction == .increasing
                ? (lastPass > UInt64.max / 2 ? high : min(high, 2 * lastPass)) : max(high, lastPass / 2)
            return doubled == lastPass ? nil : doubled
        }
        guard !isNarrowed(pass: lastPass, fail: failure) else { return nil }
        let middle = min(lastPass, failure) + (max(lastPass, failure) - min(lastPass, failure)) / 2
        return steps.contains { $0.value == middle } ? nil : middle
    }

    /// Records the verdict of the step at `value`.
    public mutating func record(_ value: UInt64, _ verdict: Verdict) {
        steps.append((value, verdict))
    }

    private func endingOnceOver() -> Ending {
        if steps.contains(where: { $0.verdict == .harnessBound }) { return .harnessBound }
        if capacity == nil { return .lowEndFails }
        guard let failure = firstFail, let pass = capacity else { return steps.last?.value == high ? .highEndHolds : .stepLimit }
        return isNarrowed(pass: pass, fail: failure) || steps.count < maximumSteps ? .found : .stepLimit
    }

    /// True when `pass` and `fail` are within the resolution of `pass` (or next to each other): bisection is done.
    private func isNarrowed(pass: UInt64, fail: UInt64) -> Bool {
        let gap = max(pass, fail) - min(pass, fail)
        return gap <= 1 || Double(gap) <= resolution * Double(pass)
    }

    private func hardest(_ values: [UInt64]) -> UInt64? {
        direction == .increasing ? values.max() : values.min()
    }

    private func easiest(_ values: [UInt64]) -> UInt64? {
        direction == .increasing ? values.min() : values.max()
    }
}
