import Foundation
import Glibc
import Testing

/// The deploy from the command line, with the subscribers in child processes (`--client-procs 2`, told the backoff in
/// their client spec): nats-server killed mid-run and started again on its port, or the clients dropped at a time (a
/// fan-out's subscribers, a chat's members). Every subscriber comes back, each
/// outage is a row of reconnects.csv with its phases, the outage's broadcasts are lost (counted), and those after every
/// return reach everyone. The threads' and agents' placements, and other servers, are `TargetRestartTests`.
@Suite(.serialized, .timeLimit(.minutes(5))) struct TargetRestartCLITests {
    static let natsServer = ["/usr/sbin/nats-server", "/usr/bin/nats-server"].first { FileManager.default.fileExists(atPath: $0) }

    @Test(.enabled(if: natsServer != nil, "nats-server is not installed: apt-get install -y nats-server"))
    func subscribersInChildProcessesComeBackAfterTheServerRestarts() throws {
        let port = try Self.freePort()
        var server = try Self.startNATS(port: port)
        defer { Self.kill(server) }
        let out = temporaryFolderPath()
        let clients = 6
        let run = try BenchProcess.start([
            "fanout", "--target", "nats://127.0.0.1:\(port)/deploy", "--clients", "\(clients)", "--client-procs", "2",
            "--reconnect", "--reconnect-base", "50ms", "--reconnect-max", "400ms", "--reconnect-tries", "100",
            "--messages", "1000", "--interval", "10ms", "--arrival", "fixed", "--report-every", "100ms", "--quiet", "--out", out,
        ])
        try #require(waitForLines(2 + 30 * clients, in: "samples.csv", under: out), "the run measured 30 broadcasts")
        Self.kill(server)
        usleep(200_000)
        server = try Self.startNATS(port: port)
        let result = try BenchProcess.finish(run, timeout: 120)
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["client_outages"] == "\(clients)" && settings["client_outages_back"] == "\(clients)")
        #expect(settings["clients_gave_up"] == "0")
        let returns = try csvRows(folder + "/reconnects.csv")
        #expect(Set(returns.compactMap { $0["client"].flatMap(Int.init) }) == Set(0..<clients))
        #expect(returns.allSatisfy { Int($0["reconnect_ns"] ?? "") != nil && Int($0["subscribe_ns"] ?? "") != nil }, "\(returns)")
        // The last return, on the run's clock (closed_ns counts from the start of sending): the broadcasts after it
        // and the publisher's return reached every subscriber; those of the outage are lost, counted.
        let lastBack = returns.map { Int($0["closed_ns"]!)! + Int($0["reconnect_ns"]!)! }.max()!
        let events = try csvRows(folder + "/events.csv")
        let publisherBack = events.filter { ($0["reason"] ?? "").hasPrefix("publisher: back after") }
        #expect(publisherBack.count == 1, "\(events.map { $0["reason"] ?? "" })")
        let broadcasts = try csvRows(folder + "/broadcasts.csv")
        #expect(broadcasts.contains { $0["lost"] != "0" }, "broadcasts went while the server was away")
        let everyoneBack = max(lastBack, publisherBack.compactMap { Int($0["time_ns"] ?? "") }.max() ?? .max)
        let afterwards = broadcasts.filter { Int($0["t0_ns"] ?? "")! > everyoneBack }
        #expect(afterwards.count >= 20 && afterwards.allSatisfy { $0["delivered"] == "\(clients)" }, "\(afterwards.prefix(3))")
    }

    /// `--drop-connections-at` against the user's server, the subscribers in child processes: each child is ordered to
    /// close its connections, and every subscriber comes back.
    @Test(.enabled(if: natsServer != nil, "nats-server is not installed: apt-get install -y nats-server"))
    func subscribersInChildProcessesDroppedAtATimeComeBack() throws {
        let port = try Self.freePort()
        let server = try Self.startNATS(port: port)
        defer { Self.kill(server) }
        let clients = 6
        let result = try BenchProcess.run([
            "fanout", "--target", "nats://127.0.0.1:\(port)/deploy", "--clients", "\(clients)", "--client-procs", "2",
            "--reconnect", "--reconnect-base", "50ms", "--reconnect-max", "400ms", "--drop-connections-at", "1s",
            "--messages", "300", "--interval", "10ms", "--arrival", "fixed", "--quiet", "--out", temporaryFolderPath(),
        ], timeout: 120)
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["connections_dropped"] == "1")
        #expect(settings["client_outages"] == "\(clients)" && settings["client_outages_back"] == "\(clients)")
        let events = try csvRows(folder + "/events.csv").map { $0["reason"] ?? "" }
        #expect(events.filter { $0.contains("closed by --drop-connections-at") }.count == clients, "\(events)")
        #expect(Set(try csvRows(folder + "/reconnects.csv").compactMap { $0["client"].flatMap(Int.init) }) == Set(0..<clients))
    }

    /// A chat's members in child processes, dropped at a time: each child is ordered to close its members'
    /// connections, and every member comes back.
    @Test(.enabled(if: natsServer != nil, "nats-server is not installed: apt-get install -y nats-server"))
    func chatMembersInChildProcessesDroppedAtATimeComeBack() throws {
        let port = try Self.freePort()
        let server = try Self.startNATS(port: port)
        defer { Self.kill(server) }
        let result = try BenchProcess.run([
            "chat", "--target", "nats://127.0.0.1:\(port)/chat", "--clients", "6", "--room-size", "3", "--client-procs", "2",
            "--reconnect", "--reconnect-base", "50ms", "--reconnect-max", "400ms", "--drop-connections-at", "1s",
            "--rate", "100/s", "--count", "200", "--arrival", "fixed", "--quiet", "--out", temporaryFolderPath(),
        ], timeout: 120)
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["connections_dropped"] == "1")
        #expect(settings["client_outages"] == "6" && settings["client_outages_back"] == "6", "\(settings)")
    }

    static func startNATS(port: UInt16) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: natsServer!)
        process.arguments = ["-a", "127.0.0.1", "-p", "\(port)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && process.isRunning {
            if accepts(port) { return process }
            usleep(20_000)
        }
        kill(process)
        throw CocoaError(.fileReadUnknown)
    }

    /// SIGKILL (a child of the test process inherits its blocked signals, SIGTERM among them), and waits for its end.
    static func kill(_ process: Process) {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard named else { throw CocoaError(.fileReadUnknown) }
        return UInt16(bigEndian: address.sin_port)
    }

    static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
