@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Testing

@testable import BenchScenarios

/// `bench serve fanout --target`: an agent's stamps are on its own clock, and the collector puts them on its own
/// (the agent's clock report) before anything is measured. A fake agent whose clock runs 5 s ahead reports each
/// broadcast as received at its own "now": put on the collector's clock, every delivery is a true one (under a
/// second), not 5 s, and none is refused as a time from the future.
@Suite(.timeLimit(.minutes(10))) struct TargetAgentClockTests {
    static let ahead: UInt64 = 5_000_000_000

    @Test func anAgentsStampsArePutOnTheCollectorsClock() throws {
        let published = LockedCounter()
        let server = try HostileServer { connection in  // the user's server: it only counts what is published
            while let bytes = connection.receive() { published.add(bytes.filter { $0 == 10 }.count) }
        }
        defer { server.stop() }
        var configuration = try TargetAttackTests.fanout("tcp://127.0.0.1:\(server.port)", subscribers: 2)
        configuration.changeTarget { $0.framing = .line }
        configuration.warmup = 0
        configuration.messages = 5
        configuration.admitAgents(tokenHash: AgentToken.hash("t"))
        let control = try RunControl()
        let box = ResultBox()
        let served = configuration
        let run = Thread { box.set(Result { () throws(RunError) in try ScenarioRunner.run(served, control: control) }) }
        run.stackSize = 8 << 20
        run.start()
        let deadline = Date() + 30
        while control.serverPort.load(ordering: .acquiring) == 0 && Date() < deadline { usleep(10_000) }
        let port = try #require(UInt16(exactly: control.serverPort.load(ordering: .acquiring)))
        let agent = try TCPSocket.connect(to: try #require(SocketAddress(host: "127.0.0.1", port: port)))
        defer { Posix.close(agent) }
        try Posix.setNonBlocking(agent, false)
        try Posix.setReceiveTimeout(agent, nanoseconds: 30_000_000_000)
        var frame = [UInt8](repeating: 0, count: WireFormat.agentFrameSize)
        frame.withUnsafeMutableBytes {
            AgentHello(clients: 2, token: AgentToken.hash("t"), pid: 1, host: "fake", boot: 0).encode(into: $0)
        }
        try Posix.sendAll(agent, frame)
        _ = try AgentRunner.readWelcome(agent, what: "welcome", whenClosed: "closed")
        #expect(try AgentRunner.readClientSpec(agent).target != nil)
        var report = [UInt8](repeating: 0, count: WireFormat.clockFrameSize)
        report.withUnsafeMutableBytes {
            ClockEstimate(offset: -Int64(Self.ahead), error: 1_000, probes: 1).encode(into: $0)
        }
        try Posix.sendAll(agent, report)
        for client in UInt32(0)..<2 { ClientGroupChannelAttackTests.send(ClientGroupChannelAttackTests.subscribed(client), on: agent) }
        for sequence in UInt32(0)..<5 {
            while published.value <= Int(sequence) && Date() < deadline + 30 { usleep(1_000) }
            var echoes = [UInt8](repeating: 0, count: 2 * WireFormat.minimumMessageSize)
            echoes.withUnsafeMutableBytes { buffer in
                for client in 0..<2 {
                    let slice = UnsafeMutableRawBufferPointer(
                        rebasing: buffer[client * WireFormat.minimumMessageSize..<(client + 1) * WireFormat.minimumMessageSize])
                    Frame.encodeMessage(
                        into: slice, kind: .read, sequence: sequence, client: UInt32(client), sentNanoseconds: 0,
                        receivedNanoseconds: MonotonicClock.now() + Self.ahead)
                }
            }
            try Posix.sendAll(agent, echoes)
        }
        run.join(timeout: 60)
        guard case .success(let recording)? = box.value else {
            Issue.record("the run did not complete: \(String(describing: box.value))")
            return
        }
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed }, "\(TargetAttackTests.tally(recording))")
        for sequence in 0..<5 {
            let t0 = recording.ledger.broadcastStart[recording.ledger.row(of: sequence)]
            for client in 0..<2 {
                let received = recording.ledger.received[recording.ledger.messageIndex(sequence: sequence, client: client)]
                #expect(received >= t0 && received - t0 < 1_000_000_000, "broadcast \(sequence) to \(client): \(received - t0) ns")
            }
        }
        #expect(recording.agents.map(\.host) == ["fake"])
    }
}

extension Thread {
    /// Waits (a bounded poll) until the thread has finished.
    func join(timeout seconds: Double) {
        let deadline = Date() + seconds
        while !isFinished && Date() < deadline { usleep(10_000) }
    }
}
