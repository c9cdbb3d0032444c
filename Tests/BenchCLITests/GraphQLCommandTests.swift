import Foundation
import Glibc
import Testing

/// `--protocol graphql` from the command line to a real GraphQL server: Strawberry on uvicorn from PyPI
/// (Tests/Fixtures/graphql_server.py), speaking graphql-transport-ws. A fan-out whose subscribers authenticate in their
/// connection_init (on threads and in child processes), a chat whose rooms are subscription arguments, a token refused,
/// and every misuse refused before anything runs.
@Suite(.serialized, .timeLimit(.minutes(10))) struct GraphQLCommandTests {
    /// The virtual environment `.ci/run` makes with Strawberry, uvicorn and websockets from PyPI.
    static let python: String? = {
        let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
            ?? (ProcessInfo.processInfo.environment["HOME"] ?? "/root") + "/.cache"
        let python = cache + "/bench-interop-venv/bin/python"
        let check = Process()
        check.executableURL = URL(fileURLWithPath: python)
        check.arguments = ["-c", "import strawberry, uvicorn, websockets, starlette"]
        check.standardOutput = FileHandle.nullDevice
        check.standardError = FileHandle.nullDevice
        guard (try? check.run()) != nil else { return nil }
        check.waitUntilExit()
        return check.terminationStatus == 0 ? python : nil
    }()
    static let notice: Comment = "Strawberry is not installed: .ci/run installs it from PyPI into ~/.cache/bench-interop-venv"

    static let token = "s3cr3t-graphql-token"
    static let subscription = #"subscription { messages(room: "lobby") }"#
    static let mutation = #"mutation { send(room: "lobby", text: "{marker}") }"#

    /// Runs `arguments` against Strawberry wanting `token`; returns the result and the run's folder.
    private func run(_ arguments: (Int) -> [String]) throws -> (BenchProcess, String) {
        let (server, port) = try startFixture("graphql_server.py", Self.token, python: Self.python!)
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let result = try BenchProcess.run(arguments(port) + ["--quiet", "--out", temporaryFolderPath()])
        return (result, result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(.enabled(if: python != nil, notice), arguments: [[], ["--client-procs", "2"]])
    func aSubscriptionsFanOutIsMeasuredAndTheTokenWrittenNowhere(placement: [String]) throws {
        let (result, folder) = try run { port in
            ["fanout", "--target", "ws://127.0.0.1:\(port)/graphql", "--protocol", "graphql", "--channel", Self.subscription,
             "--connection-params", #"{"token": "\#(Self.token)"}"#, "--publish", Self.mutation, "--clients", "3",
             "--messages", "10", "--warmup", "3", "--interval", "20ms"] + placement
        }
        #expect(result.exitCode == 0, "\(result.standardError)")
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["status"] == "complete" && settings["protocol"] == "graphql")
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 3 * 10 && samples.allSatisfy { $0["lost"] == "0" })
        let events = (try? csvRows(folder + "/events.csv")) ?? []
        #expect(!events.contains { ($0["detail"] ?? "").contains("without a bench marker") },
            "the mutations' results and completions are no deliveries")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let text = String(decoding: FileManager.default.contents(atPath: folder + "/" + file) ?? Data(), as: UTF8.self)
            #expect(!text.contains(Self.token), "\(file) holds the token")
        }
        #expect(!result.standardError.contains(Self.token))
        // The connect in its phases, each client's in connections.csv and their distributions in summary.csv.
        let connections = try csvRows(folder + "/connections.csv")
        #expect(connections.count == 3)
        for row in connections {
            let (tcp, ws) = (Int(row["connect_tcp_ns"] ?? "") ?? 0, Int(row["connect_ws_ns"] ?? "") ?? 0)
            #expect(tcp > 0 && ws > 0 && tcp + ws == Int(row["connect_ns"] ?? ""), "\(row)")
            #expect((Int(row["subscribe_ns"] ?? "") ?? 0) > 0 && row["connect_tls_ns"] == nil, "\(row)")
        }
        let summary = try csvRows(folder + "/summary.csv")
        #expect(summary.map { $0["metric"] ?? "" }.suffix(4) == ["connect", "connect_tcp", "connect_ws", "subscribe"])
        #expect(summary.suffix(3).allSatisfy { $0["count"] == "3" && $0["lost"] == "0" })
        let report = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(report.contains("<td>subscribe</td>"), "the report's table shows the phases")
        // Read back from the folder: a threshold on a phase is judged on it, and a phase the run has not is refused.
        let check = try BenchProcess.run(["check", folder, "--threshold", "subscribe.p99<10s", "--threshold", "connect_ws.p50<10s"])
        #expect(check.exitCode == 0, "\(check.standardError)\(check.standardOutput)")
        let absent = try BenchProcess.run(["check", folder, "--threshold", "connect_tls.p99<1s"])
        #expect(absent.exitCode == 2 && absent.standardError.contains("this run has no connect_tls metric"), "\(absent.standardError)")
    }

    /// Rooms as the subscription's and the mutation's argument: each member's message reaches the others of its room.
    @Test(.enabled(if: python != nil, notice))
    func aChatWhoseRoomsAreSubscriptionArgumentsIsMeasured() throws {
        let (result, folder) = try run { port in
            ["chat", "--target", "ws://127.0.0.1:\(port)/graphql", "--protocol", "graphql",
             "--channel", #"subscription { messages(room: "{room}") }"#,
             "--connection-params", #"{"token":"\#(Self.token)"}"#,
             "--publish", #"mutation { send(room: "{room}", text: "{marker}") }"#, "--clients", "6", "--room-size", "3",
             "--count", "10", "--warmup", "1", "--rate", "20/s", "--seed", "3"]
        }
        #expect(result.exitCode == 0, "\(result.standardError)")
        let messages = try csvRows(folder + "/samples.csv")
        #expect(messages.count == 6 * 10 * 2 && messages.allSatisfy { $0["lost"] == "0" }, "each to the 2 others of its room alone")
    }

    /// A round trip: each client's own room, `{client}` in the subscription and in the mutation, so that its messages
    /// come back to it alone.
    @Test(.enabled(if: python != nil, notice))
    func aRoundTripThroughEachClientsOwnRoomIsMeasured() throws {
        let (result, folder) = try run { port in
            ["roundtrip", "--target", "ws://127.0.0.1:\(port)/graphql", "--protocol", "graphql",
             "--channel", #"subscription { messages(room: "{client}") }"#,
             "--connection-params", #"{"token":"\#(Self.token)"}"#,
             "--publish", #"mutation { send(room: "{client}", text: "{marker}") }"#, "--clients", "4", "--count", "10",
             "--interval", "20ms"]
        }
        #expect(result.exitCode == 0, "\(result.standardError)")
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 4 * 10 && samples.allSatisfy { $0["lost"] == "0" })
        let events = (try? csvRows(folder + "/events.csv")) ?? []
        #expect(!events.contains { ($0["detail"] ?? "").contains("another run or client") }, "each room its client's alone")
    }

    @Test(.enabled(if: python != nil, notice))
    func aWrongTokenStopsTheRunBeforeAnyLoad() throws {
        let (result, _) = try run { port in
            ["fanout", "--target", "ws://127.0.0.1:\(port)/graphql", "--protocol", "graphql", "--channel", Self.subscription,
             "--connection-params", #"{"token":"wrong"}"#, "--publish", Self.mutation, "--clients", "2", "--messages", "5"]
        }
        #expect(result.exitCode == 3, "\(result.standardError)")
        // The publisher or a subscriber, whichever the server refuses first.
        #expect(result.standardError.contains("closed by peer (WebSocket close 4403 Forbidden)"), "\(result.standardError)")
    }

    /// Every misuse is a usage error before anything runs, and none repeats the connection parameters (a secret
    /// token sits in each of them).
    @Test func misuseIsRefusedBeforeAnythingRuns() throws {
        let users = temporaryFolderPath() + ".csv"
        try "user,token\nu1,\"to\"\"ken\"\n".write(toFile: users, atomically: true, encoding: .utf8)
        let ws = ["fanout", "--target", "ws://127.0.0.1:1/graphql", "--out", temporaryFolderPath()]
        let graphQL = ws + ["--protocol", "graphql", "--channel", Self.subscription]
        let secret = #""pw":"Hunt3r2""#
        for (arguments, message) in [
            (graphQL, "--protocol graphql needs --publish: what the server takes to send a message"),
            (graphQL + ["--publish", Self.mutation, "--connection-params", "{\(secret),\"token\":}"],
             "The value '***' is invalid for '--connection-params <json>': expected a JSON object of at most 8 KiB"),
            (graphQL + ["--publish", Self.mutation, "--connection-params", "[\(secret)]"], "expected a JSON object"),
            (graphQL + ["--publish", Self.mutation, "--connection-params", "{\(secret),\"id\":\"{message_id}\"}"],
             "no {payload}, {payload_json} or {message_id}"),
            (graphQL + ["--publish", Self.mutation, "--connection-params", "{\(secret),\"t\":\"{Hunt3r2}\"}"],
             "--connection-params has a {name} that is no column of --clients-file, and none was given"),
            (graphQL + ["--publish", Self.mutation, "--connection-params", "{\(secret),\"t\":\"{token}\"}", "--clients-file", users],
             "a value for the protocol's messages (--protocol's, gRPC's --subscribe) holds a quote, a backslash or a control character"),
            (graphQL + ["--publish", String(repeating: "\"", count: 40_000) + "{marker}"],
             "longer than 60 KiB once escaped for JSON"),
            (ws + ["--protocol", "phoenix", "--channel", "r", "--connection-params", "{\(secret)}"],
             "--protocol phoenix has no {connection_params} to fill in"),
            (ws + ["--connection-params", "{\(secret)}"], "--connection-params goes with --protocol"),
            (graphQL + ["--publish", Self.mutation, "--header", "Sec-WebSocket-Protocol: graphql-ws"],
             "--protocol graphql asks for the subprotocol graphql-transport-ws itself"),
            (ws + ["--protocol", "graphql", "--publish", Self.mutation, "--channel", "{message_id}"],
             "without control characters, {payload}"),
        ] {
            let result = try BenchProcess.run(arguments)
            #expect(result.exitCode == 2, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
            #expect(!result.standardError.contains("Hunt3r2"), "the connection parameters are never repeated")
        }
    }
}
