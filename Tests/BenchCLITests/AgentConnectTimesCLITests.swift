import Foundation
import Testing

/// The agents' connect times (their client threads' subscribed reports) reach the server, through the command line.
@Suite(.timeLimit(.minutes(10))) struct AgentConnectTimesCLITests {
    /// A run of a few milliseconds with its clients in child processes: their connect times are sent over the control
    /// connection by a loop that looks every 50 ms and not once more at the end, so none reached the server and
    /// connections.csv was empty (connect: count 0) though all 50 clients connected.
    @Test func aShortRunWithClientProcessesStillListsEveryClientsConnectTime() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--clients", "50", "--client-procs", "2", "--messages", "2", "--interval", "1ms", "--warmup", "0",
            "--quiet", "--out", out,
        ])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        let folder = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first { $0.hasPrefix("fanout-") })
        let rows = try csvRows("\(out)/\(folder)/connections.csv")
        #expect(Set(rows.compactMap { $0["client"].flatMap { Int($0) } }) == Set(0..<50), "\(rows.count) rows")
    }
}
