import Foundation
import Testing

/// Issue 45's proofs from the command line, each by the truth the link was given: a NAT that forgets an idle
/// connection (kept by heartbeats, or black-holing it), a blackout that delays and loses nothing, and a rate that
/// serializes a large message.
@Suite(.timeLimit(.minutes(10))) struct LinkTruthTests {
    /// The run folder: the line that names it, or with `--quiet` all there is.
    private func folder(_ result: BenchProcess) -> String {
        let lines = result.standardOutput.split(separator: "\n")
        return String(lines.last { $0.hasPrefix("run folder: ") }?.dropFirst(12) ?? lines.last ?? "")
    }

    /// Heartbeats every 500 ms keep a NAT that forgets after 2 s; broadcasts 3 s apart alone do not.
    @Test func heartbeatsKeepANATsMappingAndItsAbsenceLosesTheMessages() throws {
        let common = [
            "fanout", "--clients", "2", "--duration", "8s", "--interval", "3s", "--arrival", "fixed", "--warmup", "0",
            "--link", "nat-idle=2s", "--out", temporaryFolderPath(),
        ]
        let kept = try BenchProcess.run(common + ["--heartbeat", "500ms"])
        #expect(kept.exitCode == 0, "\(kept.standardError)")
        let keptRows = try csvRows(folder(kept) + "/samples.csv")
        #expect(keptRows.count == 6 && keptRows.allSatisfy { $0["lost"] == "0" }, "\(keptRows)")
        // Heartbeats every 5 s (two clients used to send one every 200 ms between them): the first broadcast passes,
        // the next two vanish; the run still ends (its server's end vanished too, and the link closes what it forgot
        // once the server is done: it used to wait for ever).
        let forgotten = try BenchProcess.run(common + ["--heartbeat", "5s"])
        #expect(forgotten.exitCode == 0, "\(forgotten.standardError)")
        let rows = try csvRows(folder(forgotten) + "/samples.csv")
        #expect(rows.filter { $0["lost"] == "1" }.map { $0["broadcast"] } == ["1", "1", "2", "2"], "\(rows)")
        // No connection closed early; events.csv holds what the link did, the NAT's forgetting, which the warning names.
        #expect(forgotten.standardError.contains(
            "4 of 6 delivery values (66.7%) were lost: see samples.csv (lost=1) and events.csv\n"), "\(forgotten.standardError)")
        let events = try csvRows(folder(forgotten) + "/events.csv")
        #expect(events.map { $0["side"] } == ["link"] && events.first?["reason"]?.contains("NAT forgot 2 connections") == true,
            "\(events)")
    }

    /// Heartbeats every 5 s do not keep a NAT that forgets after 2 s: every connection is black-holed, the server takes
    /// each for dead at `--dead-after`, and the outage report says so: the NAT's forgetting in events.csv (on the link's
    /// side, when it forgot them), the server's verdicts, and reconnects.csv's clients that never came back.
    @Test func aNATThatForgetsEveryConnectionIsDetectedDeadAndReported() throws {
        let result = try BenchProcess.run([
            "fanout", "--clients", "2", "--duration", "12s", "--interval", "3s", "--arrival", "fixed", "--warmup", "0",
            "--link", "nat-idle=2s", "--heartbeat", "5s", "--dead-after", "6s", "--quiet", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 3, "the run failed: every client disconnected. \(result.standardError)")
        let events = try csvRows(folder(result) + "/events.csv")
        let forgot = try #require(events.first { $0["side"] == "link" }, "\(events)")
        #expect(forgot["reason"]?.hasPrefix("link: its NAT forgot 2 connections idle for 2s") == true, "\(forgot)")
        let forgotAt = try #require(Int(forgot["time_ns"] ?? ""))
        #expect(forgotAt >= 2_000_000_000 && forgotAt < 3_000_000_000, "2 s after the first broadcast, their last byte")
        let dead = events.filter { $0["side"] == "server" && $0["reason"]?.hasSuffix("taken for dead") == true }
        #expect(dead.compactMap { $0["client"] }.sorted() == ["0", "1"], "\(events)")
        let outages = try csvRows(folder(result) + "/reconnects.csv")
        #expect(outages.compactMap { $0["client"] }.sorted() == ["0", "1"] && outages.allSatisfy { $0["reconnect_ns"] == "" })
    }

    /// A 2 s blackout holds what is sent in it until TCP's next retransmission after it, and loses nothing.
    @Test func aBlackoutDelaysWhatItCoversAndLosesNothing() throws {
        let result = try BenchProcess.run([
            "fanout", "--clients", "2", "--duration", "6s", "--interval", "250ms", "--arrival", "fixed", "--warmup", "0",
            "--link", "blackout=2s@2s", "--quiet", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let deliveries = try csvRows(folder(result) + "/samples.csv").map { Int($0["delivery_ns"] ?? "") }
        #expect(deliveries.count >= 40 && deliveries.allSatisfy { $0 != nil }, "none lost: \(deliveries)")
        let values = deliveries.compactMap { $0 }
        #expect(values.max()! >= 1_500_000_000, "held through the blackout: \(values.max()!) ns")
        #expect(values.filter { $0 < 100_000_000 }.count >= 8, "those sent before it pass at once")
        let events = try csvRows(folder(result) + "/events.csv")
        #expect(events.map { $0["reason"] } == ["link: blackout for 2s: no byte either way"], "\(events)")
        let at = try #require(Int(events.first?["time_ns"] ?? ""))
        #expect(at > 0 && at <= 2_000_000_000, "2 s after the link started, in the run's setup: \(at)")
        #expect(try csvRows(folder(result) + "/reconnects.csv").isEmpty, "nobody's connection closed")
    }

    /// A 64 KiB message at 8 Mbit/s takes its bits' time each way: 65.5 ms (issue 45's number), twice in a round trip.
    @Test func aRateSerializesALargeMessage() throws {
        let result = try BenchProcess.run([
            "roundtrip", "--clients", "1", "--count", "5", "--interval", "300ms", "--payload", "64KiB", "--link",
            "rate=8mbit", "--quiet", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let rtts = try csvRows(folder(result) + "/samples.csv").compactMap { Int($0["rtt_ns"] ?? "") }
        #expect(rtts.count == 5 && rtts.allSatisfy { $0 >= 131_000_000 }, "65.5 ms each way at least: \(rtts)")
    }
}
