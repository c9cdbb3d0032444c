@testable import BenchClients
import Testing

@testable import BenchScenarios

/// A client thread's heartbeats keep their period however late its passes come (100,000 connections on two CPUs made
/// passes a second late, and one tick's share a pass left clients silent long enough to be taken for dead).
@Suite struct HeartbeatCreditTests {
    private let period: UInt64 = 5_000_000_000
    private let tick: UInt64 = 100_000_000

    @Test func passesOnTimeSendEachClientOneHeartbeatAPeriod() {
        var credit = HeartbeatCredit()
        var sent = 0
        for pass in 1...50 { sent += credit.take(clients: 1_000, at: UInt64(pass) * tick, period: period, tick: tick) }
        #expect(sent == 1_000)
    }

    @Test func aPassASecondLateSendsASecondsWorth() {
        var credit = HeartbeatCredit()
        _ = credit.take(clients: 1_000, at: tick, period: period, tick: tick)
        #expect(credit.take(clients: 1_000, at: tick + 1_000_000_000, period: period, tick: tick) == 200)
    }

    @Test func aPassLaterThanAPeriodSendsEveryClientsOneHeartbeatNoMore() {
        var credit = HeartbeatCredit()
        _ = credit.take(clients: 10, at: tick, period: period, tick: tick)
        #expect(credit.take(clients: 10, at: tick + 60_000_000_000, period: period, tick: tick) == 10)
        #expect(credit.take(clients: 10, at: 0, period: 0, tick: tick) == 0, "no heartbeat without a period")
    }
}
