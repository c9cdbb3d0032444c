import Testing

@testable import BenchCore

/// A connect's phases from a connection's times, and as a subscribed report carries them: what reads back is what was
/// written, and anything else from a peer is refused.
@Suite struct ConnectPhasesTests {
    @Test func phasesAreTheSpansBetweenTheConnectionsTimes() {
        let phases = ConnectPhases(started: 100, connected: 350, streamEstablished: 1_350, established: 1_400, ready: 9_400)
        #expect(phases == ConnectPhases(tcp: 250, tls: 1_000, webSocket: 50, subscribe: 8_000))
        #expect(phases.tcp + phases.tls + phases.webSocket == 1_400 - 100, "the first three are the connect time")
        let backwards = ConnectPhases(started: 100, connected: 50, streamEstablished: 0, established: 10, ready: 5)
        #expect(backwards == ConnectPhases(tcp: 0, tls: 0, webSocket: 10, subscribe: 0))
    }

    /// A phase the connection has not (the harness's steps between two it has) goes to the phase before it.
    @Test func aPhaseTheConnectionHasNotGoesToTheOneBefore() {
        let phases = ConnectPhases(tcp: 100, tls: 3, webSocket: 2, subscribe: 50)
        #expect(phases.having(tls: true, webSocket: true) == phases)
        #expect(phases.having(tls: true, webSocket: false) == ConnectPhases(tcp: 100, tls: 5, webSocket: 0, subscribe: 50))
        #expect(phases.having(tls: false, webSocket: true) == ConnectPhases(tcp: 103, tls: 0, webSocket: 2, subscribe: 50))
        #expect(phases.having(tls: false, webSocket: false) == ConnectPhases(tcp: 105, tls: 0, webSocket: 0, subscribe: 50))
    }

    /// A client's phases add up to its connect time (at least 1 ns, so phases of 0 go with 1); a peer's that do not
    /// are refused.
    @Test func theTransportsPhasesAddUpToTheConnectTime() {
        let phases = ConnectPhases(tcp: 100, tls: 3, webSocket: 2, subscribe: 50)
        #expect(phases.addUp(to: 105) && !phases.addUp(to: 155) && !phases.addUp(to: 104))
        #expect(ConnectPhases(tcp: 0, tls: 0, webSocket: 0, subscribe: 7).addUp(to: 1))
        #expect(!ConnectPhases(tcp: 0, tls: 0, webSocket: 0, subscribe: 7).addUp(to: 2))
    }

    @Test func whatIsWrittenReadsBack() {
        for phases in [
            ConnectPhases(tcp: 0, tls: 0, webSocket: 0, subscribe: 0),
            ConnectPhases(tcp: 123_456, tls: 7, webSocket: 89, subscribe: ConnectPhases.longest),
        ] {
            #expect(ConnectPhases(text: phases.text) == phases, "\(phases.text)")
        }
    }

    @Test(arguments: [
        "", "1,2,3", "1,2,3,4,5", "1,2,,4", "1,2,3,-4", "1,2,3,+4", " 1,2,3,4", "1,2,3,4 ", "1,2,3,0x4", "1,2,3,3600000000001",
        "1,2,3,99999999999999999999", "1,2,3,٤",
    ])
    func anythingElseIsRefused(text: String) {
        #expect(ConnectPhases(text: text) == nil)
    }
}
