import BenchCore
import Foundation
import Glibc
import Testing

/// Every transport of the built-in server with every placement of its clients: in this process, in child processes
/// (`--client-procs 2`), and from agents of `bench serve` (two `bench clients`). Each completes with nothing lost, and a
/// run with agents names them in agents.csv. Small sizes: what is checked is that they compose.
@Suite(.timeLimit(.minutes(10))) struct CompositionTests {
    enum Placement: String, CaseIterable, Sendable {
        case inProcess, clientProcesses, serveAndAgents
    }

    static let cases: [(String, Placement)] = ["tcp", "ws", "tls", "wss"].flatMap { transport in
        Placement.allCases.map { (transport, $0) }
    }

    @Test(arguments: cases)
    func theBuiltInServerOverEachTransportWithEachPlacementLosesNothing(transport: String, placement: Placement) throws {
        let out = temporaryFolderPath()
        let run = ["--clients", "6", "--messages", "20", "--interval", "5ms", "--transport", transport, "--quiet", "--out", out]
        let result: BenchProcess
        switch placement {
        case .inProcess:
            result = try BenchProcess.run(["fanout", "--client-threads", "2"] + run)
        case .clientProcesses:
            result = try BenchProcess.run(["fanout", "--client-procs", "2"] + run)
        case .serveAndAgents:
            let (server, port) = try startServe(["fanout", "--token", "t"] + run)
            let agents = try (0..<2).map { _ in
                try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "3", "--token", "t"])
            }
            result = try BenchProcess.finish(server, timeout: 60)
            for agent in agents {
                let ended = try BenchProcess.finish(agent, timeout: 30)
                #expect(ended.exitCode == 0, "\(ended.standardError)")
                #expect(ended.standardError.contains("of 6 over \(transport)"), "\(ended.standardError)")
            }
        }
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["transport"] == transport)
        #expect(settings["messages_measured"] == "120" && settings["messages_lost"] == "0", "\(settings)")
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 120 && samples.allSatisfy { $0["lost"] == "0" })
        let agents = (try? csvRows(folder + "/agents.csv")) ?? []
        #expect(agents.map { $0["clients"]! } == (placement == .inProcess ? [] : ["3", "3"]), "\(agents)")
    }

    /// The agents' client threads report their load (a second after their clients said hello, then every second: the
    /// run lasts 2.2 s), so that the run's harness figures are not the server's alone.
    @Test func clientProcessesReportTheirThreadsLoad() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--client-procs", "2", "--clients", "6", "--messages", "100", "--interval", "20ms", "--quiet",
            "--out", out,
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        let clients = try #require(Double(settings["harness_cpu_clients_pct"] ?? ""), "\(settings["harness_cpu_clients_pct"] ?? "nil")")
        #expect(clients > 0 && clients <= 100)
    }

    /// More WebSocket clients than one process's descriptors hold go to client processes by themselves (they used to
    /// fail at once: the agents spoke tcp only).
    @Test func moreWebSocketClientsThanOneProcessHoldsAreSplitOverClientProcesses() throws {
        let out = temporaryFolderPath()
        // 64 descriptors in reserve and 2 a client: 100 clients need more than a limit of 256 gives one process (the
        // server's end of each still fits).
        let process = try BenchProcess.start(
            ["fanout", "--clients", "100", "--transport", "ws", "--messages", "5", "--quiet", "--out", out],
            descriptorLimit: 256)
        let result = try BenchProcess.finish(process, timeout: 120)
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let agents = try csvRows(folder + "/agents.csv")
        #expect(!agents.isEmpty && agents.map { Int($0["clients"]!)! }.reduce(0, +) == 100, "\(agents)")
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["messages_measured"] == "500" && settings["messages_lost"] == "0", "\(settings)")
    }

    /// A client that says hello in plain bench frames on a ws run's port (where agents' control connections are
    /// plain) is refused: the run measures its transport, not a way around it.
    @Test func aPlainClientOnAWebSocketRunIsRefused() throws {
        let (server, port) = try startServe([
            "fanout", "--clients", "2", "--messages", "5", "--transport", "ws", "--token", "t", "--quiet", "--out",
            temporaryFolderPath(),
        ])
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let hello: [UInt8] = [0, 0, 0, 16, 1, WireFormat.version, 0, 0] + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        #expect(write(socket, hello, hello.count) == hello.count)
        var byte: UInt8 = 0
        #expect(read(socket, &byte, 1) == 0, "the server closed the plain client's connection")
        let agent = try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "2", "--token", "t"])
        let result = try BenchProcess.finish(server, timeout: 60)
        _ = try BenchProcess.finish(agent, timeout: 30)
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let events = try csvRows(folder + "/events.csv")
        #expect(events.contains { $0["reason"]!.contains("in plain bench frames; this run's clients speak ws") }, "\(events)")
    }
}

/// Starts `bench serve` with `arguments` and returns it with the port it listens on, once it says.
func startServe(_ arguments: [String]) throws -> (BenchProcess.Running, Int) {
    let server = try BenchProcess.start(["serve"] + arguments)
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
        let text = (try? String(contentsOfFile: server.outputBase + ".err", encoding: .utf8)) ?? ""
        if let range = text.range(of: #"listening on 127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
            return (server, Int(text[range].split(separator: ":").last!)!)
        }
        usleep(20_000)
    }
    _ = try BenchProcess.finish(server, timeout: 1)
    throw POSIXError(.ETIMEDOUT)
}
