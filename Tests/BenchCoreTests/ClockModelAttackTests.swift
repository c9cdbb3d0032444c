import Testing

@testable import BenchCore

/// Attacks on ``ClockModel``: rounds at irregular times, hostile reports and stamps.
@Suite struct ClockModelAttackTests {
    private static let second: UInt64 = 1_000_000_000

    /// The clocks run at the same rate (no true drift); the server's clock is `trueOffset` ahead. Each round is off
    /// by its whole bound, alternately high and low: an honest measurement.
    private static let trueOffset: Int64 = 7_777_000_000_000
    private static let roundError: UInt64 = 10_000

    private func model(roundsAtSeconds times: [Double]) -> ClockModel {
        var model = ClockModel()
        for (index, time) in times.enumerated() {
            let noise = Int64(Self.roundError) * (index % 2 == 0 ? 1 : -1)
            model.add(
                ClockEstimate(offset: Self.trueOffset + noise, error: Self.roundError, probes: 32),
                at: UInt64(time * 1e9))
        }
        return model
    }

    /// The bound the server uses for a stamp whose true time is between `low` and `high` (on its clock).
    private func bound(_ model: ClockModel, low: UInt64, high: UInt64) -> UInt64? {
        model.error(forTimesBetween: low, and: high)
    }

    /// Rounds that arrive at irregular times (one report processed late: the latest two are 0.5 s apart) still give
    /// a bound that covers the stamps that come before the next round, up to 5 s after the latest: the bound must not
    /// be taken from the last spacing alone.
    @Test(arguments: [[10_000.0, 10_005.0, 10_014.5, 10_015.0], [10_000.0, 10_001.0]])
    func irregularRoundsKeepAnHonestBound(times: [Double]) throws {
        let model = model(roundsAtSeconds: times)
        #expect(model.measuresDrift)
        let latest = UInt64(times.last! * 1e9)
        for quarter in UInt64(0)...20 {
            let since = quarter * Self.second / 4
            let truth = latest + since
            let agentStamp = UInt64(Int64(truth) - Self.trueOffset)
            let converted = model.serverTime(ofAgentStamp: agentStamp)
            let miss = converted > truth ? converted - truth : truth - converted
            let error = try #require(bound(model, low: truth - Self.second / 1000, high: truth))
            #expect(miss <= error, "rounds at \(times), \(since) ns after the latest: off by \(miss) ns, bound \(error)")
        }
    }

    /// Anything a hostile agent may report (or its clients stamp) converts without trapping, and the model keeps its
    /// own promises: both rounds accounted for, the drift within ±500 ppm, a bound no tighter than the latest round's.
    @Test func hostileReportsAndStampsDoNotTrapAndKeepTheModelsPromises() {
        let offsets: [Int64] = [.min, .max, 0, -1]
        let errors: [UInt64] = [0, .max, .max - 1, 1 << 63]
        let ats: [UInt64] = [0, 1, Self.second, .max / 2, .max - 1, .max]
        for o1 in offsets { for o2 in offsets { for e1 in errors { for e2 in errors {
            for (a1, a2) in [(UInt64(0), UInt64.max), (1, 2 * Self.second), (.max - Self.second * 2, .max)] {
                var model = ClockModel()
                model.add(ClockEstimate(offset: o1, error: e1, probes: 1), at: a1)
                model.add(ClockEstimate(offset: o2, error: e2, probes: 1), at: a2)
                for stamp in [UInt64(0), 1, .max, .max / 2, 1 << 63] {
                    _ = model.serverTime(ofAgentStamp: stamp)
                }
                #expect(model.rounds + model.roundsLeftOut == 2)
                #expect(model.driftPPM.isFinite && abs(model.drift) <= ClockModel.largestDrift, "drift \(model.drift)")
                let latest = model.latest?.error ?? 0
                #expect((model.error ?? 0) >= latest, "the bound covers the latest round's")
                for at in ats {
                    #expect((model.error(forTimesBetween: 0, and: at) ?? 0) >= latest)
                    #expect((model.error(forTimesBetween: at, and: .max) ?? 0) >= latest)
                }
            }
        } } } }
    }
}
