/// An agent's clock put on the server's: its offset measured in rounds during the run (``ClockEstimate``s), with the
/// linear drift between the first and the latest round, so that a run of an hour on clocks that drift apart by
/// 10 ppm (36 ms an hour) still compares its stamps within the measurements' bounds.
///
/// A stamp `s` of the agent's clock is on the server's at `s + offset(s)`, where `offset` is the latest round's offset
/// plus the drift times the time since that round. With one round there is no drift to correct (a run shorter than
/// one round interval). The drift is kept within ±``largestDrift`` (500 ppm, the most NTP ever slews a clock): a
/// larger one is a measurement (or an agent) not to be trusted.
public struct ClockModel: Sendable, Equatable {
    /// One measurement: when (the server's clock), the offset found, and its bound.
    public struct Round: Sendable, Equatable {
        public let at: UInt64
        public let offset: Int64
        public let error: UInt64

        public init(at: UInt64, offset: Int64, error: UInt64) {
            (self.at, self.offset, self.error) = (at, offset, error)
        }
    }

    /// The largest drift believed: 500 ppm.
    public static let largestDrift = 500e-6
    /// Rounds closer than this to the first do not set the drift: two measurements a moment apart say nothing of it.
    public static let shortestDriftBase: UInt64 = 1_000_000_000

    /// The first round (before the run) and the latest; nil before any.
    public private(set) var first: Round?
    public private(set) var latest: Round?
    /// Rounds the model kept.
    public private(set) var rounds = 0
    /// Rounds left out: their bound was more than twice the best's (and ``errorSlack``): a server too busy to answer
    /// at once (a fanout of 19,000 clients falling seconds behind its timetable made bounds of 200 ms) would only blur
    /// the offset and the drift.
    public private(set) var roundsLeftOut = 0
    /// What a round's bound may exceed twice the best's by and still be kept.
    public static let errorSlack: UInt64 = 10_000
    /// d(offset)/dt: how fast the server's clock gains on the agent's (1e-6 = 1 ppm); 0 until two rounds are far enough
    /// apart.
    public private(set) var drift = 0.0
    /// True once two rounds were far enough apart to measure the drift (even if it is 0).
    public private(set) var measuresDrift = false
    /// How far apart the latest two rounds were: how far past the latest a stamp is expected to be before the next.
    public private(set) var spacing: UInt64 = 0

    public init() {}

    /// Takes a round measured at `at` on the server's clock.
    /// A round much worse than the best so far is left out; one much better than the first (a first round measured
    /// while the server was busy) starts the line again from it.
    public mutating func add(_ estimate: ClockEstimate, at: UInt64) {
        let round = Round(at: at, offset: estimate.offset, error: estimate.error)
        guard let first, let latest else {
            (self.first, self.latest, rounds) = (round, round, 1)
            return
        }
        let best = min(first.error, latest.error)
        let (twice, overflow) = best.multipliedReportingOverflow(by: 2)
        guard overflow || round.error <= twice &+ min(Self.errorSlack, .max - twice) else {
            roundsLeftOut += 1
            return
        }
        if round.error < first.error / 4 {
            (self.first, self.latest, spacing, drift, measuresDrift) = (round, round, 0, 0, false)
            rounds += 1
            return
        }
        rounds += 1
        if at > latest.at { spacing = at - latest.at }
        self.latest = round
        guard at > first.at, at - first.at >= Self.shortestDriftBase else { return }
        measuresDrift = true
        let change = Double(round.offset) - Double(first.offset)
        drift = min(max(change / Double(at - first.at), -Self.largestDrift), Self.largestDrift)
    }

    /// The agent's stamp `stamp` on the server's clock (wrapping, as stamps from the network may be anything).
    @inline(__always)
    public func serverTime(ofAgentStamp stamp: UInt64) -> UInt64 {
        guard let latest else { return stamp }
        let approximate = stamp &+ UInt64(bitPattern: latest.offset)
        guard drift != 0 else { return approximate }
        // The server's time T solves T = stamp + offset + drift × (T − at): T − approximate = drift × (approximate − at)
        // / (1 − drift). At most 2^63 ns × 5e-4 / (1 − 5e-4): far inside Int64.
        let since = Double(Int64(bitPattern: approximate &- latest.at))
        return approximate &+ UInt64(bitPattern: Int64((since * drift / (1 - drift)).rounded()))
    }

    /// How far a converted stamp may be from the truth: the latest round's bound, and with a drift, the uncertainty of
    /// the drift ((e₀ + eₖ) / (tₖ − t₀)) over one ``spacing`` past the latest round (the next round comes by then,
    /// or the run ends), with 0.1% more for the drift applied to that uncertainty; nil before any round. Two rounds:
    /// 2eₖ + e₀; an hour of rounds every 5 s: eₖ and 0.14% of e₀ + eₖ.
    public var error: UInt64? {
        guard let latest else { return nil }
        return bound(reaching: spacing, latest: latest)
    }

    /// The bound for a stamp whose true time (on the server's clock) is between `low` and `high`: the drift's
    /// uncertainty grows with the distance from the latest round, which rounds at irregular times (or a late next
    /// round) make longer than ``spacing``; nil before any round.
    public func error(forTimesBetween low: UInt64, and high: UInt64) -> UInt64? {
        guard let first, let latest else { return nil }
        let after = high > latest.at ? high - latest.at : 0
        // Before the latest round the line is between two measured points: never further than the first.
        let before = low < latest.at ? min(latest.at - low, latest.at - first.at) : 0
        return bound(reaching: max(after, before), latest: latest)
    }

    /// The latest round's bound and, with a drift, the drift's uncertainty over `reach` from the latest round.
    private func bound(reaching reach: UInt64, latest: Round) -> UInt64 {
        guard let first, measuresDrift else { return latest.error }
        let base = Double(latest.at - first.at)
        let drift = (Double(first.error) + Double(latest.error)) * (Double(reach) / base)
        let bound = (Double(latest.error) + drift) * 1.001 + 1
        return bound >= 1.8e19 ? .max : UInt64(bound.rounded(.up))
    }

    /// The drift in parts per million.
    public var driftPPM: Double { drift * 1e6 }

    /// An agent's stamp put on the server's clock: one that then falls outside `low...high` by no more than the
    /// error bound is taken as `low` or `high` (the estimate's uncertainty, not a lie); anything further stays as it
    /// is, for the plausibility checks to refuse (and report).
    public func serverTime(ofAgentStamp stamp: UInt64, between low: UInt64, and high: UInt64) -> UInt64 {
        let stamp = serverTime(ofAgentStamp: stamp)
        guard stamp < low || stamp > high, let error = error(forTimesBetween: low, and: high) else { return stamp }
        if stamp < low && low - stamp <= error { return low }
        if stamp > high && stamp - high <= error { return high }
        return stamp
    }
}
