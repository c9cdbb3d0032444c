import Foundation
import Testing

/// `--connect-rate`: the clients come at the rate asked, in every placement, and the setup waits for the ramp. The
/// bound is one no machine can beat (the last of 11 clients at 5/s starts 2 s after the first), never one a slow
/// machine could miss.
@Suite(.timeLimit(.minutes(10))) struct ConnectRateTests {
    @Test(arguments: [[], ["--client-threads", "2"], ["--client-procs", "2"]])
    func theClientsOfARunConnectNoFasterThanTheRateAsked(placement: [String]) throws {
        let out = temporaryFolderPath()
        let started = Date()
        let result = try BenchProcess.run(
            ["fanout", "--clients", "11", "--connect-rate", "5/s", "--messages", "5", "--interval", "10ms", "--quiet",
             "--out", out] + placement)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(elapsed >= 2, "11 clients at 5/s took \(elapsed) s")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["connect_interval_ns"] == "200000000")
        #expect(settings["status"] == "complete")
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 5 * 11 && samples.allSatisfy { $0["lost"] == "0" })
    }

    @Test(arguments: [
        (["fanout", "--connect-rate", "0/s"], "'--connect-rate <n/s>': expected clients per second or minute"),
        (["fanout", "--connect-rate", "2000000/s"], "(up to 1000000/s)"),
        (["fanout", "--connect-rate", "fast"], "'--connect-rate <n/s>'"),
        (["fanout", "--connect-rate", "10/h"], "'--connect-rate <n/s>'"),
        (["fanout", "--clients", "100000", "--connect-rate", "1/s"], "'--connect-rate <n/s>': must be at most 1000000/s, and connect the 100000 clients within"),
        (["clients", "--connect", "127.0.0.1:1", "--clients", "2", "--connect-rate", "5/s"], "Unknown option '--connect-rate'"),
    ])
    func aRateThatCannotBeIsAUsageError(arguments: [String], message: String) throws {
        let result = try BenchProcess.run(arguments + ["--out", temporaryFolderPath()])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }
}
