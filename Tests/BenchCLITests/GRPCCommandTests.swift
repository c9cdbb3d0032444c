import Foundation
import Glibc
import Testing

/// gRPC from the command line (Tests/Fixtures/grpc_relay_server.py, Debian's python3-grpcio): a fan-out whose
/// subscribers are in child processes, two to a connection, and a `--clients-file` value that would break out of
/// `--subscribe`'s string refused before anything runs.
@Suite(.serialized, .timeLimit(.minutes(10))) struct GRPCCommandTests {
    static let hasGRPC: Bool = {
        guard let check = try? Process.run(URL(fileURLWithPath: "/usr/bin/python3"), arguments: ["-c", "import grpc"]) else {
            return false
        }
        check.waitUntilExit()
        return check.terminationStatus == 0
    }()

    static let notice: Comment = "python3-grpcio is not installed: apt-get install -y python3-grpcio"

    /// The fixture started for `body`, given its port, and killed after.
    private func withServer<Result>(_ body: (Int) throws -> Result) throws -> Result {
        let (server, port) = try startFixture("grpc_relay_server.py")
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        return try body(port)
    }

    /// A fan-out through the fixture (a new one, or at `port`) in room `room` with `options` added; its result and
    /// run folder.
    private func fanout(port: Int? = nil, room: String, _ options: [String]) throws -> (BenchProcess, String) {
        guard let port else { return try withServer { try fanout(port: $0, room: room, options) } }
        let result = try BenchProcess.run([
            "fanout", "--target", "grpc://127.0.0.1:\(port)/bench.Relay/Subscribe", "--subscribe", "1: \"\(room)\"",
            "--publish-method", "bench.Relay/Publish", "--publish", "1: \"\(room)\" 2: \"{marker}{padding}\"",
            "--messages", "10", "--warmup", "2", "--interval", "10ms", "--quiet", "--out", temporaryFolderPath(),
        ] + options)
        return (result, result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(.enabled(if: hasGRPC, notice))
    func aFanoutInChildProcessesTwoSubscribersToAConnectionIsMeasured() throws {
        let (result, folder) = try fanout(
            room: "cli", ["--streams-per-connection", "2", "--client-procs", "2", "--clients", "6"])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["status"] == "complete" && settings["streams_per_connection"] == "2" && settings["transport"] == "grpc")
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 6 * 10 && samples.allSatisfy { $0["lost"] == "0" })
        // Three connections of two, the children's shares cut between them (2 and 4), not four (3 and 3, each 2 + 1):
        // the subscribers a connection carries share its connect time.
        let connects = Set(try csvRows(folder + "/connections.csv").map { $0["connect_ns"] ?? "" })
        #expect(connects.count == 3, "\(connects)")
    }

    /// What sharing costs against one connection each is a comparison of two runs: `bench compare` says they differ
    /// in the subscribers per connection, as it says every setting that changes what is measured.
    @Test(.enabled(if: hasGRPC, notice))
    func benchCompareSaysTwoRunsShareConnectionsDifferently() throws {
        let ((one, baseline), (two, current)) = try withServer { port in
            (try fanout(port: port, room: "one", ["--clients", "4"]),
             try fanout(port: port, room: "two", ["--clients", "4", "--streams-per-connection", "2"]))
        }
        #expect(one.exitCode == 0 && two.exitCode == 0, "\(one.standardError) \(two.standardError)")
        let compared = try BenchProcess.run(["compare", baseline, current])
        #expect(compared.standardOutput.contains("note: the runs differ in streams_per_connection 1 → 2"), "\(compared.standardOutput)")
    }

    /// Behind `--link delay=20ms` each way, as for every protocol: every delivery at least 20 ms after its broadcast,
    /// and each subscription (the call's headers out, the server's back) at least one round trip, 40 ms.
    @Test(.enabled(if: hasGRPC, notice))
    func aFanoutBehindALinkTakesItsDelay() throws {
        let (result, folder) = try fanout(room: "link", ["--link", "delay=20ms", "--clients", "4", "--timestamps", "user"])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 4 * 10 && samples.allSatisfy { $0["lost"] == "0" && (Int($0["delivery_ns"] ?? "") ?? 0) >= 20_000_000 },
            "\(samples.prefix(2))")
        let connects = try csvRows(folder + "/connections.csv")
        #expect(connects.count == 4 && connects.allSatisfy { (Int($0["subscribe_ns"] ?? "") ?? 0) >= 40_000_000 }, "\(connects)")
    }

    @Test func aClientsFileValueThatWouldLeaveSubscribesStringIsRefused() throws {
        let users = temporaryFolderPath() + ".csv"
        try "user\n\"u1\"\" 2: \"\"x\"\n".write(toFile: users, atomically: true, encoding: .utf8)  // u1" 2: "x
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--target", "grpc://127.0.0.1:1/bench.Relay/Subscribe", "--subscribe", #"1: "{user}""#,
            "--publish-method", "bench.Relay/Publish", "--publish", #"2: "{marker}""#, "--clients-file", users, "--out", out,
        ])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("a value for the protocol's messages (--protocol's, gRPC's --subscribe) holds a quote"),
            "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: out), "nothing written")
    }
}
