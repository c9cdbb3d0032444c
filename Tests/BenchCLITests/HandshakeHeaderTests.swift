import Foundation
import Glibc
import Testing

@testable import BenchCLI

/// `--header` from the command line to the user's server, and its value nowhere else: not in run.csv's command line,
/// not in any file of the run folder, not on the terminal, not on a child's command line (children and agents get it
/// over their control channel). The server is a WebSocket relay that refuses a handshake without its bearer token.
@Suite(.serialized, .timeLimit(.minutes(10))) struct HandshakeHeaderTests {
    static let token = "sEcReT-t0ken-42"
    static let hasWebSockets: Bool = {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        check.arguments = ["-c", "import websockets"]
        check.standardOutput = FileHandle.nullDevice
        check.standardError = FileHandle.nullDevice
        guard (try? check.run()) != nil else { return false }
        check.waitUntilExit()
        return check.terminationStatus == 0
    }()

    @Test func theRecordedCommandLineHidesEverySecret() {
        let recorded = BenchCommandLine.recorded([
            "fanout", "--target", "mqtt+ws://bench:pa55@127.0.0.1:1/t", "--header", "Authorization: Bearer abc",
            "--header=Cookie: s=1", "--token", "tok", "--token=tok2", "--publish-url", "http://127.0.0.1:1/p", "--clients", "5",
        ])
        #expect(recorded == "bench fanout --target 'mqtt+ws://bench:***@127.0.0.1:1/t' --header 'Authorization: ***' "
            + "'--header=Cookie: ***' --token '***' '--token=***' --publish-url http://127.0.0.1:1/p --clients 5")
        #expect(BenchCommandLine.recorded(["fanout", "--target", "redis://:pw@h:1/c"]) == "bench fanout --target 'redis://:***@h:1/c'")
    }

    @Test(
        .enabled(if: hasWebSockets, "python3-websockets is not installed: apt-get install -y python3-websockets"),
        arguments: [[], ["--client-procs", "2"]])
    func aServerThatWantsABearerTokenIsMeasuredAndTheTokenIsWrittenNowhere(placement: [String]) throws {
        let (server, port) = try Self.startRelay()
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(Self.arguments(port: port, out: out) + ["--header", "Authorization: Bearer \(Self.token)"] + placement)
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["status"] == "complete")
        #expect(settings["headers"] == "Authorization")
        let runCSV = try String(contentsOfFile: folder + "/run.csv", encoding: .utf8)  // command_line has quoted commas
        #expect(runCSV.contains("--header 'Authorization: ***'"), "\(runCSV)")
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 3 * 10 && samples.allSatisfy { $0["lost"] == "0" })
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let text = (try? String(contentsOfFile: folder + "/" + file, encoding: .utf8)) ?? ""
            #expect(!text.contains(Self.token), "the token is in \(file)")
        }
        #expect(!(result.standardOutput + result.standardError).contains(Self.token))
    }

    @Test(.enabled(if: hasWebSockets, "python3-websockets is not installed: apt-get install -y python3-websockets"))
    func withoutTheTokenTheRunStopsBeforeAnyLoadWithTheServersStatusAndReason() throws {
        let (server, port) = try Self.startRelay()
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let result = try BenchProcess.run(
            Self.arguments(port: port, out: temporaryFolderPath()) + ["--header", "Authorization: Bearer wrong"])
        #expect(result.exitCode == 3, "the run could not run: \(result.standardError)")
        #expect(result.standardError.contains("401 Unauthorized"), "\(result.standardError)")
        // websockets 10.4 writes the body apart from the head: the client waits for the reason its length announces.
        #expect(result.standardError.contains("missing or wrong bearer token"), "the server's reason: \(result.standardError)")
    }

    /// `--clients-file`: each of 3 clients (and the publisher, as row 0) shows its own token; the relay takes only those
    /// three. On threads and in child processes (which get the rows over their channel, not their command line).
    @Test(
        .enabled(if: hasWebSockets, "python3-websockets is not installed: apt-get install -y python3-websockets"),
        arguments: [[], ["--client-procs", "2"]])
    func eachClientShowsItsOwnTokenFromTheClientsFile(placement: [String]) throws {
        let tokens = ["alpha-\(Self.token)", "beta-\(Self.token)", "gamma-\(Self.token)"]
        let (server, port) = try Self.startRelay(accepting: tokens)
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let file = temporaryFolderPath() + ".csv"
        try ("user,token\n" + tokens.enumerated().map { "u\($0),\($1)\n" }.joined()).write(toFile: file, atomically: true, encoding: .utf8)
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(
            Self.arguments(port: port, out: out) + ["--header", "Authorization: Bearer {token}", "--clients-file", file] + placement)
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["clients_file"] == file && settings["clients_file_rows"] == "3" && settings["status"] == "complete")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let text = (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? ""
            #expect(!text.contains(Self.token), "a token is in \(name)")
        }

        // A row whose token the server does not take: that client is refused, by number, with the server's status.
        try ("user,token\nu0,\(tokens[0])\nu1,\(tokens[1])\nu2,stale\n").write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try BenchProcess.run(
            Self.arguments(port: port, out: out) + ["--header", "Authorization: Bearer {token}", "--clients-file", file] + placement)
        #expect(refused.exitCode == 3)
        #expect(refused.standardError.contains("refused subscriber 2") && refused.standardError.contains("401"), "\(refused.standardError)")
    }

    @Test func aClientsFileThatCannotServeTheRunIsAUsageError() throws {
        let file = temporaryFolderPath() + ".csv"
        try "user,token\nu0,t0\nu1,t1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let target = ["fanout", "--target", "ws://127.0.0.1:1/", "--out", temporaryFolderPath()]
        for (arguments, message) in [
            (target + ["--clients", "3", "--clients-file", file], "2 rows for 3 clients: give a row to each, or --clients-file-cycle"),
            (target + ["--clients", "2", "--clients-file", file, "--header", "X-T: {tokn}"], "{tokn} is no column of --clients-file \(file) (user, token)"),
            (target + ["--header", "X-T: {token}"], "{token} is a variable of --clients-file, and none was given"),
            (target + ["--clients-file-cycle"], "--clients-file-cycle does nothing without --clients-file"),
            // What stopped it, not a guess (the old message blamed the encoding of a file that did not exist).
            (target + ["--clients-file", file + ".missing"], "cannot be read: open \(file).missing: No such file or directory"),
            (["fanout", "--clients-file", file], "--clients-file goes with --target"),
            (target + ["--clients", "2", "--clients-file", file, "--header", "X-C: {client}"], "{client} is no column of --clients-file"),
            (["fanout", "--target", "mqtt+ws://127.0.0.1:1/t", "--header", "Sec-WebSocket-Protocol: x", "--out", temporaryFolderPath()],
             "an mqtt+ws:// handshake asks for the subprotocol mqtt itself"),
        ] {
            let result = try BenchProcess.run(arguments)
            #expect(result.exitCode == 2, "\(arguments)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
            #expect(!result.standardError.contains("t0") && !result.standardError.contains("t1"), "no value shown")
        }
    }

    /// Values that would change what the URL means are refused before anything runs; a URL's password is not repeated
    /// in a usage error.
    @Test func clientValuesThatWouldBreakTheURLAndPasswordsInUsageErrorsAreRefused() throws {
        let file = temporaryFolderPath() + ".csv"
        try "user,room2\nu 0,a+b\n".write(toFile: file, atomically: true, encoding: .utf8)
        let blank = try BenchProcess.run(
            ["fanout", "--target", "ws://127.0.0.1:1/live?u={user}", "--clients", "1", "--clients-file", file, "--out", temporaryFolderPath()])
        #expect(blank.exitCode == 2 && blank.standardError.contains("a value for the URL is not visible ASCII"), "\(blank.standardError)")
        let wildcard = try BenchProcess.run(
            ["fanout", "--target", "mqtt://127.0.0.1:1/t/{room2}", "--clients", "1", "--clients-file", file, "--out", temporaryFolderPath()])
        #expect(wildcard.exitCode == 2 && wildcard.standardError.contains("holds a wildcard"), "\(wildcard.standardError)")
        let password = try BenchProcess.run(["roundtrip", "--target", "redis://:hunter2@127.0.0.1:1/c", "--out", temporaryFolderPath()])
        #expect(password.exitCode == 2 && !password.standardError.contains("hunter2"), "\(password.standardError)")
        #expect(password.standardError.contains("redis://:***@127.0.0.1:1/c"))
        let ramp = try BenchProcess.run(["fanout", "--clients", "1000000", "--connect-rate", "0.001/min", "--out", temporaryFolderPath()])
        #expect(ramp.exitCode == 2, "refused, not a trap: \(ramp.standardError)")
    }

    /// A fan-out of 3 subscribers and 10 broadcasts through the relay on `port`.
    static func arguments(port: Int, out: String) -> [String] {
        ["fanout", "--target", "ws://127.0.0.1:\(port)/", "--clients", "3", "--messages", "10", "--warmup", "3",
         "--interval", "10ms", "--publish", "{\"type\":\"broadcast\",\"payload\":\"{marker}{padding}\"}",
         "--quiet", "--out", out]
    }

    /// The relay (Tests/Fixtures/ws_broadcast_server.py) on a free port, wanting ``token``; waits (up to 30 s) until it
    /// accepts.
    static func startRelay(accepting tokens: [String] = [token]) throws -> (Process, Int) {
        try startFixture("ws_broadcast_server.py", tokens.joined(separator: ","))
    }
}
