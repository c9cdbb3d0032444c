import Foundation
import Glibc
import Testing

/// `bench serve` and `bench clients`: the server and collector in one process, the clients in agents.
@Suite struct ServeAndClientsTests {
    /// Starts `bench serve` with `arguments` and returns it with the port it listens on, once it says.
    private func serve(_ arguments: [String]) throws -> (BenchProcess.Running, Int) {
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

    private func rows(_ path: String) throws -> [[String: String]] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\r\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(lines[0], $0)) }
    }

    @Test func twoAgentsBringTheClientsOfAFanoutAndAWrongTokenIsTurnedAway() throws {
        let out = temporaryFolderPath()
        let (server, port) = try serve([
            "fanout", "--clients", "6", "--messages", "30", "--interval", "5ms", "--token", "s3cret", "--quiet",
            "--out", out,
        ])
        let intruder = try BenchProcess.run(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "3", "--token", "guess"])
        #expect(intruder.exitCode == 3)
        #expect(intruder.standardError.contains("instead of welcoming this agent"), "\(intruder.standardError)")
        let agents = try (0..<2).map { _ in
            try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "3", "--token", "s3cret"])
        }
        let served = try BenchProcess.finish(server, timeout: 60)
        #expect(served.exitCode == 0, "\(served.standardError)")
        for agent in agents {
            let result = try BenchProcess.finish(agent, timeout: 30)
            #expect(result.exitCode == 0, "\(result.standardError)")
            #expect(result.standardError.contains("the run ended"))
        }
        let folder = served.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let joined = try rows(folder + "/agents.csv")
        #expect(joined.map { $0["clients"] } == ["3", "3"])
        #expect(Set(joined.map { $0["first_client"]! }) == ["0", "3"])
        let samples = try rows(folder + "/samples.csv")
        #expect(samples.count == 6 * 30 && samples.allSatisfy { $0["lost"] == "0" }, "every client of both agents echoed")
        #expect(Set(samples.map { $0["client"]! }).count == 6)
        let events = try rows(folder + "/events.csv")
        #expect(events.contains { $0["reason"]!.contains("does not know this run's --token") })
    }

    @Test func aServerWhoseAgentsDoNotAllComeSaysWhoIsMissingAndExitsThree() throws {
        let out = temporaryFolderPath()
        let (server, port) = try serve([
            "roundtrip", "--clients", "5", "--count", "10", "--token", "t", "--join-timeout", "2s", "--quiet",
            "--out", out,
        ])
        let agent = try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "2", "--token", "t"])
        let served = try BenchProcess.finish(server, timeout: 30)
        #expect(served.exitCode == 3)
        #expect(served.standardError.contains("2 of 5 clients connected"), "\(served.standardError)")
        #expect(served.standardError.contains("3 client ids not taken by any agent"))
        _ = try BenchProcess.finish(agent, timeout: 10)
        #expect(contents(of: out)?.filter { !$0.hasPrefix(".") } ?? [] == [], "no run folder")
    }

    @Test(arguments: [
        (["serve"], "bench serve needs its scenario"),
        (["serve", "fanout", "--clients", "4"], "--token is required"),
        (["serve", "fanout", "--token", "t", "--listen", "nowhere"], "'--listen <host:port>'"),
        (["clients", "--token", "t"], "--connect is required"),
        (["clients", "--connect", "127.0.0.1:7000"], "--token is required"),
        (["clients", "--connect", "127.0.0.1", "--token", "t"], "'--connect <host:port>'"),
    ])
    func aBadServeOrClientsCommandLineExitsTwo(arguments: [String], message: String) throws {
        let result = try BenchProcess.run(arguments)
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }
}
