@testable import BenchClients
import BenchCore
import BenchNet
import Glibc
import Testing

@testable import BenchScenarios

/// Issue 46's connects at scale: a run reads the kernel's count of full accept queues (`ListenOverflows`) before it
/// listens and after it ended, and says how much it grew.
@Suite(.timeLimit(.minutes(10))) struct ListenOverflowTests {
    @Test func theCountersAreReadByNameFromTheTcpExtLines() {
        let text = "TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPHPHits\nTcpExt: 1 37 41 9\n"
            + "IpExt: InNoRoutes\nIpExt: 0\n"
        #expect(ListenQueueCounters.parse(text) == ListenQueueCounters(overflows: 37))
        #expect(ListenQueueCounters.parse("TcpExt: ListenOverflows ListenDrops\nTcpExt: 1\n") == nil, "a value missing")
        #expect(ListenQueueCounters.parse("TcpExt: ListenDrops\nTcpExt: 4\n") == nil, "no ListenOverflows")
        #expect(ListenQueueCounters.parse("TcpExt: ListenOverflows ListenDrops\nTcpExt: x 2\n") == nil, "not a number")
        #expect(ListenQueueCounters.parse("") == nil)
    }

    /// A listener of backlog 0 whose connections nobody accepts, overflowed while a run goes: the run counts at least
    /// those overflows (the kernel counts any listener's; others may add to them), and says what they mean.
    @Test func aRunCountsTheAcceptQueueOverflowsDuringIt() throws {
        let before = try #require(ListenQueueCounters.read(), "/proc/net/netstat has TcpExt's counters")
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.clients = 2
        configuration.messages = 3_000  // a minute: stopped once the listener below overflowed
        configuration.interval = 20_000_000
        let run = try BackgroundRun(configuration)
        run.waitUntilRunning()
        let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!, backlog: 0)
        defer { Posix.close(listener) }
        var connects: [Int32] = []
        defer { connects.forEach(Posix.close) }
        var now = before
        for _ in 0..<1_000 where now.overflows == before.overflows {  // a bound only a hang reaches
            if connects.count < 8 { connects.append(try TCPSocket.startConnecting(to: address).relinquish()) }
            usleep(10_000)
            now = try #require(ListenQueueCounters.read())
        }
        run.control.requestStop()
        let recording = try run.finish()
        #expect(now.overflows > before.overflows, "the listener overflowed")
        let counted = try #require(recording.listenOverflows)
        #expect(counted >= now.overflows - before.overflows, "\(counted)")
        #expect(SynRetries.overflowNote(counted)?.hasPrefix("accept queues overflowed \(counted) time") == true)
        #expect(SynRetries.overflowNote(0) == nil)
    }
}
