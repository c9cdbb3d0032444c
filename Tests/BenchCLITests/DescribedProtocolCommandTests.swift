import Foundation
import Glibc
import Testing

/// `--protocol` from the command line to a server that speaks Phoenix Channels or ActionCable as their documented
/// frames say (Tests/Fixtures/channels_server.py): fan-out on threads and in child processes, a chat whose rooms are
/// channels, a refused join in the server's words, and every misuse refused before anything runs.
@Suite(.serialized, .timeLimit(.minutes(10))) struct DescribedProtocolCommandTests {
    static let enabled = HandshakeHeaderTests.hasWebSockets
    static let notice: Comment = "python3-websockets is not installed: apt-get install -y python3-websockets"

    /// Runs `arguments` against the fixture speaking `kind`; returns the result and run.csv's settings.
    private func run(
        _ kind: String, refusing: String = "none", _ arguments: (Int) -> [String]
    ) throws -> (BenchProcess, [String: String]) {
        let (server, port) = try startFixture("channels_server.py", kind, refusing)
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let result = try BenchProcess.run(arguments(port) + ["--quiet", "--out", temporaryFolderPath()])
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = result.exitCode == 0
            ? Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) }) : [:]
        return (result, settings.merging(["folder": folder]) { $1 })
    }

    @Test(.enabled(if: enabled, notice), arguments: [[], ["--client-procs", "2"]])
    func aPhoenixTopicsFanOutIsMeasured(placement: [String]) throws {
        let (result, settings) = try run("phoenix") { port in
            ["fanout", "--target", "ws://127.0.0.1:\(port)/socket/websocket?vsn=2.0.0", "--protocol", "phoenix",
             "--channel", "room:lobby", "--clients", "3", "--messages", "10", "--warmup", "3", "--interval", "10ms"] + placement
        }
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(settings["status"] == "complete" && settings["protocol"] == "phoenix")
        let samples = try csvRows(settings["folder"]! + "/samples.csv")
        #expect(samples.count == 3 * 10 && samples.allSatisfy { $0["lost"] == "0" })
    }

    /// ActionCable's identifier is JSON that goes inside a JSON string; the server's pings (every second) are no
    /// deliveries. A chat whose rooms are channels: `{room}` in the identifier.
    @Test(.enabled(if: enabled, notice))
    func anActionCableChannelsFanOutAndChatAreMeasured() throws {
        let (fanout, settings) = try run("actioncable") { port in
            ["fanout", "--target", "ws://127.0.0.1:\(port)/cable", "--protocol", "actioncable",
             "--channel", #"{"channel":"ChatChannel"}"#, "--clients", "3", "--messages", "10", "--warmup", "3",
             "--interval", "150ms"]  // 2 s: pings come in between
        }
        #expect(fanout.exitCode == 0, "\(fanout.standardError)")
        let samples = try csvRows(settings["folder"]! + "/samples.csv")
        #expect(samples.count == 3 * 10 && samples.allSatisfy { $0["lost"] == "0" })
        let events = (try? csvRows(settings["folder"]! + "/events.csv")) ?? []
        #expect(!events.contains { ($0["detail"] ?? "").contains("without a bench marker") }, "pings are no deliveries")
        let (chat, chatSettings) = try run("actioncable") { port in
            ["chat", "--target", "ws://127.0.0.1:\(port)/cable", "--protocol", "actioncable",
             "--channel", #"{"channel":"ChatChannel","room":"{room}"}"#, "--clients", "6", "--room-size", "3",
             "--count", "10", "--warmup", "1", "--rate", "20/s", "--seed", "3"]
        }
        #expect(chat.exitCode == 0, "\(chat.standardError)")
        let messages = try csvRows(chatSettings["folder"]! + "/samples.csv")
        #expect(messages.count == 6 * 10 * 2 && messages.allSatisfy { $0["lost"] == "0" }, "each to the 2 others of its room alone")
    }

    /// A chat through a described protocol that says `own-copy yes` (ActionCable's description and that line: the
    /// fixture sends a stream's broadcast to every subscriber, the sender too): each message has its round trip, the
    /// sender's read of its own copy, beside its deliveries to the others.
    @Test(.enabled(if: enabled, notice))
    func aChatWhoseServerSendsTheSenderItsOwnCopyHasAnRTTPerMessage() throws {
        let file = temporaryFolderPath() + ".protocol"
        let actionCable = try BenchProcess.run(["protocols", "show", "actioncable"]).standardOutput
        try (actionCable + "\nown-copy yes\n").write(toFile: file, atomically: true, encoding: .utf8)
        let (chat, settings) = try run("actioncable") { port in
            ["chat", "--target", "ws://127.0.0.1:\(port)/cable", "--protocol", file,
             "--channel", #"{"channel":"ChatChannel","room":"{room}"}"#, "--clients", "6", "--room-size", "3",
             "--count", "10", "--warmup", "1", "--rate", "20/s", "--seed", "3"]
        }
        #expect(chat.exitCode == 0, "\(chat.standardError)")
        let messages = try csvRows(settings["folder"]! + "/messages.csv")
        #expect(messages.count == 6 * 10, "one row per message sent")
        #expect(messages.allSatisfy { Int($0["rtt_ns"] ?? "") ?? 0 > 0 }, "\(messages.prefix(2))")
        let samples = try csvRows(settings["folder"]! + "/samples.csv")
        #expect(samples.count == 6 * 10 * 2 && samples.allSatisfy { $0["lost"] == "0" }, "each to the 2 others of its room")
    }

    @Test(.enabled(if: enabled, notice))
    func aRefusedJoinStopsTheRunWithTheServersWords() throws {
        let (result, _) = try run("phoenix", refusing: "room:secret") { port in
            ["fanout", "--target", "ws://127.0.0.1:\(port)/socket/websocket", "--protocol", "phoenix",
             "--channel", "room:secret", "--clients", "2", "--messages", "5"]
        }
        #expect(result.exitCode == 3, "\(result.standardError)")
        #expect(result.standardError.contains(#""reason":"unauthorized""#), "\(result.standardError)")
    }

    @Test func misuseIsRefusedBeforeAnythingRuns() throws {
        let file = temporaryFolderPath() + ".protocol"
        try "send {\"type\":\"hello\"}\nexpcet ok\n".write(toFile: file, atomically: true, encoding: .utf8)
        let plain = temporaryFolderPath() + "-plain.protocol"
        try "send {\"type\":\"join\",\"who\":\"{user}\"}\n".write(toFile: plain, atomically: true, encoding: .utf8)
        let ws = ["fanout", "--target", "ws://127.0.0.1:1/socket", "--out", temporaryFolderPath()]
        for (arguments, message) in [
            (ws + ["--protocol", "phoenix"], "--protocol phoenix needs --channel: what it subscribes to"),
            (ws + ["--channel", "room:1"], "--channel goes with --protocol"),
            (ws + ["--protocol", file], "line 2: unknown keyword 'expcet'"),
            (ws + ["--protocol", file + ".missing"], "is neither actioncable nor graphql nor phoenix nor a readable file"),
            (ws + ["--protocol", plain], "{user} is a variable of --clients-file, and none was given"),
            (ws + ["--protocol", plain, "--channel", "x"], "--protocol \(plain) has no {channel} to fill in"),
            (ws + ["--protocol", "phoenix", "--channel", "a\tb"], "without control characters"),
            (ws + ["--protocol", "phoenix", "--channel", "r", "--subscribe", "x"], "--subscribe does not apply with --protocol"),
            (["fanout", "--target", "mqtt://127.0.0.1:1/t", "--protocol", "phoenix", "--out", temporaryFolderPath()],
             "is for ws:// and wss:// targets"),
            (["fanout", "--protocol", "phoenix"], "--protocol goes with --target"),
        ] {
            let result = try BenchProcess.run(arguments)
            #expect(result.exitCode == 2, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }
    }
}

/// `bench protocols` lists the built-in descriptions and `bench protocols show NAME` prints one whole, which
/// `--protocol FILE` reads back as it stands (the docs said to copy `actioncable`'s, and no command printed it).
@Suite struct ProtocolsCommandTests {
    @Test func theBuiltInDescriptionsAreListedAndOneIsPrintedToCopy() throws {
        let list = try BenchProcess.run(["protocols"])
        #expect(list.exitCode == 0)
        let names = list.standardOutput.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(names == ["actioncable", "graphql", "phoenix"], "\(list.standardOutput)")
        #expect(list.standardOutput.contains("Rails ActionCable: welcome, subscribe"))
        let shown = try BenchProcess.run(["protocols", "show", "actioncable"])
        #expect(shown.exitCode == 0 && shown.standardOutput.hasPrefix("# Rails ActionCable"), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("publish    {\"command\":\"message\""))
        // The printed text is a description --protocol takes from a file: a run against nobody fails only at connect.
        let file = temporaryFolderPath() + ".protocol"
        try shown.standardOutput.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try BenchProcess.run([
            "fanout", "--target", "ws://127.0.0.1:1/cable", "--protocol", file, "--channel", "{\"channel\":\"C\"}",
            "--out", temporaryFolderPath(),
        ])
        #expect(run.exitCode == 3 && !run.standardError.contains("--protocol"), "\(run.standardError)")
        let unknown = try BenchProcess.run(["protocols", "show", "xmpp"])
        #expect(unknown.exitCode == 2 && unknown.standardError.contains("no built-in protocol 'xmpp' (actioncable, graphql, phoenix)"))
    }
}
