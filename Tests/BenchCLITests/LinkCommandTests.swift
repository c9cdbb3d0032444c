import Foundation
import Glibc
import Testing

/// `--link` from the command line: the built-in server's round trip and a chat through the built-in relay (a
/// target's path) behind an emulated link, each message at least the link's delay each way late, the link recorded in
/// run.csv; `bench links`; and every misuse refused before anything runs.
@Suite(.timeLimit(.minutes(10))) struct LinkCommandTests {
    private func settings(_ folder: String) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
    }

    @Test func aRoundTripBehindALinkTakesItsDelayBothWays() throws {
        let result = try BenchProcess.run([
            "roundtrip", "--link", "delay=20ms,jitter=5ms", "--clients", "3", "--count", "20", "--interval", "20ms",
            "--quiet", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 60 && samples.allSatisfy { $0["lost"] == "0" })
        let rtts = samples.compactMap { Int($0["rtt_ns"] ?? "") }
        #expect(rtts.count == 60 && rtts.allSatisfy { $0 >= 30_000_000 }, "at least 15 ms each way: \(rtts.min() ?? 0) ns")
        let run = try String(contentsOfFile: folder + "/run.csv", encoding: .utf8)  // quoted commas: read as text
        #expect(run.contains("\r\nlink,\"delay=20ms,jitter=5ms\"\r\n"), "\(run)")
        #expect(run.contains("\r\nlink_model,\"down unlimited 20.00ms ±5.00ms, up unlimited 20.00ms ±5.00ms\"\r\n"))
    }

    /// A chat through the built-in relay takes the path of a user's server (`--target`): its members behind the link.
    @Test func aChatsMembersBehindALinkHearEachOtherAtLeastTwoDelaysLate() throws {
        let result = try BenchProcess.run([
            "chat", "--link", "3g", "--clients", "6", "--room-size", "3", "--count", "5", "--rate", "10/s", "--seed", "5",
            "--quiet", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let deliveries = try csvRows(folder + "/samples.csv").compactMap { Int($0["delivery_ns"] ?? "") }
        #expect(deliveries.count == 6 * 5 * 2 && deliveries.allSatisfy { $0 >= 200_000_000 }, "100 ms up, 100 ms down")
        #expect(try settings(folder)["link"] == "3g")
        let page = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(page.contains("<tr><td>link</td><td>3g: down 780 kbit/s 100.00ms, up 330 kbit/s 100.00ms</td></tr>"))
    }

    @Test func theLinksCommandListsThePresetsWithTheirNumbers() throws {
        let result = try BenchProcess.run(["links"])
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.contains("lte      down 50 Mbit/s 50.00ms, up 10 Mbit/s 65.00ms"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("verybad  down 1 Mbit/s 500.00ms 10% loss"))
    }

    @Test func misuseIsRefusedBeforeAnythingRuns() throws {
        let out = temporaryFolderPath()
        for (arguments, message) in [
            (["fanout", "--link", "5g"], "is no preset (wifi, dsl, lte, 3g, edge, verybad)"),
            (["fanout", "--link", "lte:70%,3g:30%"], "a mix of links (lte:70%,3g:30%) is not built yet"),
            (["fanout", "--link", "lte", "--client-procs", "2"], "--client-procs with --link is not built yet"),
            (["fanout", "--link", "delay=1ms,jitter=2ms"], "jitter is at most the delay it varies"),
            (["fanout", "--link", "lte", "--source-addresses", "127.0.0.2,127.0.0.3"], "--source-addresses does not apply with --link"),
            (["serve", "fanout", "--link", "lte", "--token", "t"], "agents behind --link are not built yet"),
        ] {
            let result = try BenchProcess.run(arguments + ["--out", out])
            #expect(result.exitCode == 2, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: out), "a usage error writes nothing")
    }
}
