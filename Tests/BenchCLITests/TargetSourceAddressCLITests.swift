import Foundation
import Testing

/// `--source-addresses` against a user's server from the command line, the subscribers in child processes
/// (`--client-procs 2`, told the addresses in their client spec): each leaves from its address, as nats-server's debug
/// log shows.
@Suite(.timeLimit(.minutes(5))) struct TargetSourceAddressCLITests {
    @Test(.enabled(if: TargetRestartCLITests.natsServer != nil, "nats-server is not installed: apt-get install -y nats-server"))
    func subscribersInChildProcessesLeaveFromTheSourceAddressesGiven() throws {
        let port = try TargetRestartCLITests.freePort()
        let log = temporaryFolderPath() + ".nats.log"
        let server = Process()
        server.executableURL = URL(fileURLWithPath: TargetRestartCLITests.natsServer!)
        server.arguments = ["-a", "127.0.0.1", "-p", "\(port)", "-D", "-l", log]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { TargetRestartCLITests.kill(server) }
        let deadline = Date().addingTimeInterval(10)
        while !TargetRestartCLITests.accepts(port) && server.isRunning && Date() < deadline { usleep(20_000) }
        try #require(TargetRestartCLITests.accepts(port), "nats-server did not listen on \(port) (taken meanwhile?)")
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--target", "nats://127.0.0.1:\(port)/sources", "--clients", "4", "--client-procs", "2",
            "--source-addresses", "127.0.0.2,127.0.0.3", "--messages", "5", "--interval", "10ms", "--quiet", "--out", out,
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let created = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("Client connection created") }
        #expect(created.filter { $0.contains(" 127.0.0.2:") }.count == 2, "\(created)")
        #expect(created.filter { $0.contains(" 127.0.0.3:") }.count == 2, "\(created)")
    }
}
