import BenchCore
import Testing

@testable import BenchScenarios

/// The one place a remote stamp is put on the collector's clock, with numbers worked out by hand.
@Suite struct RemoteClockTests {
    /// An agent whose clock is 1,000 ns behind the collector's, measured once with a bound of 50 ns.
    private static let agent: RemoteClock = {
        var model = ClockModel()
        model.add(ClockEstimate(offset: 1_000, error: 50, probes: 1), at: 10_000)
        return RemoteClock(model: model)
    }()

    @Test func thisMachinesStampsStayAsTheyAre() {
        let local = RemoteClock(model: nil)
        #expect(local.time(of: 123) == 123)
        #expect(local.time(of: 5, between: 100, and: 200) == 5)  // a local stamp is a fact, never moved into bounds
        #expect(local.read(150, kernel: 140, between: 100, and: 200) == (150, 140))
        #expect(local.shifted(777, remoteWrite: 0, localWrite: 100) == 777)
    }

    @Test func anAgentsStampIsPutOnThisClockByItsOffset() {
        #expect(Self.agent.time(of: 20_000) == 21_000)
        #expect(Self.agent.time(of: 20_000, between: 20_500, and: 22_000) == 21_000)
    }

    @Test func aStampOutsideItsBoundsByLessThanTheErrorIsTakenAsTheBound() {
        // 21,000 is 30 ns before the write at 21,030: within the 50 ns bound, so the write's time.
        #expect(Self.agent.time(of: 20_000, between: 21_030, and: 22_000) == 21_030)
        #expect(Self.agent.time(of: 20_000, between: 20_000, and: 20_960) == 20_960)
        // 200 ns outside: no estimate's uncertainty, left as it is for the plausibility checks to refuse.
        #expect(Self.agent.time(of: 20_000, between: 21_200, and: 22_000) == 21_000)
    }

    @Test func aKernelReadStampIsKeptBetweenTheWriteAndTheUserSpaceRead() {
        let (user, kernel) = Self.agent.read(20_000, kernel: 20_040, between: 20_500, and: 21_010)
        #expect(user == 21_000)
        #expect(kernel == 21_000)  // 21,040 is 40 ns after the user-space read: within the bound, so the read's time
        #expect(Self.agent.read(20_000, kernel: 0, between: 20_500, and: 22_000) == (21_000, 0))  // none stays none
    }

    @Test func aStampOfAnIntervalTheAgentTimedIsShiftedAsItsWriteWas() {
        #expect(Self.agent.shifted(5_300, remoteWrite: 5_000, localWrite: 90_000) == 90_300)
        #expect(Self.agent.shifted(5_300, remoteWrite: 0, localWrite: 90_000) == nil)  // its write was never reported
        #expect(Self.agent.shifted(0, remoteWrite: 5_000, localWrite: 90_000) == 0)  // no stamp taken stays none
    }
}
