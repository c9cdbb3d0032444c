import Testing

@testable import BenchCore

/// The agent's clock on the server's: offset and linear drift from rounds, against a clock whose truth is known.
@Suite struct ClockModelTests {
    /// An agent clock 7,777 s behind the server's and running `ppm` slower: server = agent + offset(server).
    private struct TrueClocks {
        let ppm: Double
        let offsetAtZero: Int64 = 7_777_000_000_000
        func offset(atServer time: UInt64) -> Int64 { offsetAtZero + Int64((Double(time) * ppm * 1e-6).rounded()) }
        func agentStamp(atServer time: UInt64) -> UInt64 { UInt64(Int64(time) - offset(atServer: time)) }
    }

    /// Rounds every 5 s from t = 10,000 s, each off by up to its bound (10 µs), alternately high and low.
    private func model(of clocks: TrueClocks, rounds: Int, error: UInt64 = 10_000) -> ClockModel {
        var model = ClockModel()
        for round in 0..<rounds {
            let at = UInt64(10_000 + 5 * round) * 1_000_000_000
            let noise = Int64(error) * (round % 2 == 0 ? 1 : -1)
            model.add(ClockEstimate(offset: clocks.offset(atServer: at) + noise, error: error, probes: 32), at: at)
        }
        return model
    }

    @Test(arguments: [0.0, 10.0, -50.0, 200.0])
    func stampsUpToARoundIntervalPastTheLatestRoundAreWithinTheBound(ppm: Double) throws {
        let clocks = TrueClocks(ppm: ppm)
        for rounds in [2, 3, 12] {
            let model = model(of: clocks, rounds: rounds)
            let error = try #require(model.error)
            #expect(model.measuresDrift && model.rounds == rounds)
            let latest = UInt64(10_000 + 5 * (rounds - 1)) * 1_000_000_000
            for since in stride(from: 0, through: 5_000_000_000, by: 250_000_000) {
                let truth = latest + UInt64(since)
                let converted = model.serverTime(ofAgentStamp: clocks.agentStamp(atServer: truth))
                let miss = converted > truth ? converted - truth : truth - converted
                #expect(miss <= error, "\(ppm) ppm, \(rounds) rounds, \(since) ns after: off by \(miss) ns, bound \(error)")
            }
        }
    }

    @Test func anHourAt10PPMIsCorrectedToItsBoundWhereTheFirstOffsetAloneWouldBe36MillisecondsOff() throws {
        let clocks = TrueClocks(ppm: 10)
        let model = model(of: clocks, rounds: 721)  // every 5 s for an hour, as an agent measures
        var once = ClockModel()
        let start: UInt64 = 10_000_000_000_000
        once.add(ClockEstimate(offset: clocks.offset(atServer: start), error: 10_000, probes: 32), at: start)
        let truth = start + 3_605_000_000_000  // 5 s after the last round
        let stamp = clocks.agentStamp(atServer: truth)
        #expect(once.serverTime(ofAgentStamp: stamp) &- truth > 36_000_000)  // the offset of before the run only
        let corrected = model.serverTime(ofAgentStamp: stamp)
        let miss = corrected > truth ? corrected - truth : truth - corrected
        
        #expect(try #require(model.error) == 10_039 && miss <= 10_039)
        #expect(abs(model.driftPPM - 10) < 0.01)
    }

    /// A server too busy to answer at once (19,000 clients, seconds behind) gives rounds of 200 ms bounds: they would
    /// blur the line (a drift from one of them is 2%), so they are left out; a first round much worse than a later one
    /// gives way to it.
    @Test func roundsMuchWorseThanTheBestAreLeftOutAndAMuchBetterOneStartsTheLineAgain() throws {
        let clocks = TrueClocks(ppm: 0)
        var model = ClockModel()
        let start: UInt64 = 10_000_000_000_000
        model.add(ClockEstimate(offset: clocks.offset(atServer: start), error: 20_000, probes: 32), at: start)
        model.add(ClockEstimate(offset: clocks.offset(atServer: start) + 150_000_000, error: 200_000_000, probes: 32), at: start + 5_000_000_000)
        #expect(model.rounds == 1 && model.roundsLeftOut == 1 && model.error == 20_000 && model.drift == 0)
        model.add(ClockEstimate(offset: clocks.offset(atServer: start) + 30_000, error: 45_000, probes: 32), at: start + 10_000_000_000)
        #expect(model.rounds == 2 && model.measuresDrift, "within twice the best and 10 µs: kept")

        var late = ClockModel()
        late.add(ClockEstimate(offset: 5_000_000, error: 4_000_000, probes: 32), at: start)  // measured while busy
        late.add(ClockEstimate(offset: 7_000, error: 9_000, probes: 32), at: start + 5_000_000_000)
        #expect(late.first == late.latest && late.first?.error == 9_000 && !late.measuresDrift)
        #expect(late.serverTime(ofAgentStamp: 1_000) == 8_000 && late.error == 9_000)
    }

    @Test func oneRoundCorrectsTheOffsetOnlyWithItsOwnBound() {
        var model = ClockModel()
        #expect(model.error == nil && model.serverTime(ofAgentStamp: 123) == 123)
        model.add(ClockEstimate(offset: -5_000, error: 700, probes: 32), at: 10_000_000_000)
        model.add(ClockEstimate(offset: -4_000, error: 900, probes: 32), at: 10_500_000_000)  // too soon for a drift
        #expect(!model.measuresDrift && model.drift == 0 && model.rounds == 2)
        #expect(model.serverTime(ofAgentStamp: 1_000_000) == 996_000)
        #expect(model.error == 900)
    }

    @Test func anAgentsAbsurdReportsNeitherTrapNorBelieveMoreThan500PPM() {
        var model = ClockModel()
        model.add(ClockEstimate(offset: .min, error: .max, probes: 1), at: 0)
        model.add(ClockEstimate(offset: .max, error: .max, probes: 1), at: 2_000_000_000)
        #expect(model.drift == ClockModel.largestDrift)
        #expect(model.error == .max)
        for stamp: UInt64 in [0, 1, .max, .max / 2, 1 << 63] { _ = model.serverTime(ofAgentStamp: stamp) }
        var backwards = ClockModel()
        backwards.add(ClockEstimate(offset: 0, error: 1, probes: 1), at: 5_000_000_000)
        backwards.add(ClockEstimate(offset: 0, error: 1, probes: 1), at: 1_000_000_000)  // "earlier" than the first
        #expect(!backwards.measuresDrift)
    }
}
