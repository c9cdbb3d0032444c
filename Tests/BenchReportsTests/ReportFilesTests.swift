@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Testing
import BenchProtocols

@testable import BenchReports
@testable import BenchScenarios

/// The report files of a hand-made recording: exact bytes where the format matters.
@Suite struct ReportFilesTests {
    private func recording() -> RunRecording {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 3)
        configuration.clients = 2
        configuration.messages = 2
        configuration.warmup = 1
        configuration.timestamps = .user
        var recording = RunRecording(configuration: configuration)
        recording.startNanoseconds = 1_000
        recording.endNanoseconds = 2_001_000
        recording.startUnixNanoseconds = 1_795_000_000_000_000_000  // 2026-11-18T11:06:40Z
        // Messages (sequence, client): warmup (0, *), then (1, 0) echoed, (1, 1) lost, (2, 0) echoed, (2, 1) echoed.
        let times: [(due: UInt64, written: UInt64, echoed: UInt64)] = [
            (1_000, 1_100, 1_500), (1_000, 1_200, 1_600), (2_000, 2_010, 2_510), (2_000, 2_020, 0), (3_000, 3_005, 4_005),
            (3_000, 3_007, 5_007),
        ]
        for (index, time) in times.enumerated() {
            recording.ledger.due(message: index, at: time.due)
            recording.ledger.written(index, at: time.written)
            let stamps = MessageLedger.EchoStamps(received: time.written, echoed: time.echoed, arrival: time.echoed)
            if time.echoed != 0 { _ = recording.ledger.echo(sequence: index / 2, client: index % 2, stamps) }
        }
        recording.ledger.timedOut(3)
        recording.server.cpus = CPUSet([0])
        recording.record(ConnectionEvent(side: .server, client: nil, time: 1_500, reason: "unknown frame kind 71, \"GET\""))
        return recording
    }

    private func csv(_ body: (inout CSVWriter<ByteArraySink>) throws -> Void) throws -> String {
        var writer = CSVWriter(sink: ByteArraySink())
        try body(&writer)
        try writer.flush()
        return writer.sink.string
    }

    @Test func samplesAreWrittenInTheOrderTheySettleWithTimesFromTheStartAndLossesMarked() throws {
        let recording = recording()
        let reader = SettledMessageReader(recording.configuration)
        let text = try csv { writer in
            try writer.row(SamplesCSV.header(.roundtrip, timestamps: .user))
            for entry in recording.remainingStream() where entry.kind == .message {
                try SamplesCSV.writeRow(
                    entry, reader: reader, origin: recording.startNanoseconds, warmup: recording.configuration.warmup,
                    interval: 0, to: &writer)
            }
        }
        #expect(text == """
            client,seq,scheduled_ns,sent_ns,echo_ns,rtt_ns,lag_ns,lost,outcome,interval\r
            0,0,1000,1010,1510,500,10,0,echoed,0\r
            1,0,1000,1020,,,20,1,timed_out,0\r
            0,1,2000,2005,3005,1000,5,0,echoed,0\r
            1,1,2000,2007,4007,2000,7,0,echoed,0\r

            """)
    }

    @Test func theSummaryHasUnitsInItsColumnsAndEmptyCellsForWhatWasNeverMeasured() throws {
        var lostOnly = DistributionBuilder(metric: "rtt", under: 200_000_000)
        lostOnly.recordLost(3)
        let text = try csv { try SummaryCSV.write([lostOnly.summary()], to: &$0) }
        #expect(text == """
            metric,count,lost,min_us,mean_us,stddev_us,p50_us,p90_us,p95_us,p99_us,p999_us,max_us,under_us,pct_under,precision,clock_error_us,link\r
            rtt,0,3,,,,,,,,,,200000.000,0.000,exact,,\r

            """)
    }

    @Test func runSettingsQuoteWhatNeedsQuotingAndRecordTheStartInUTC() throws {
        let analysis = RunAnalysis(recording: recording())
        let metadata = RunMetadata(commandLine: "bench roundtrip --out 'a,b'", version: "9.9.9", kernel: "Linux 6", cpus: 2)
        let rows = try CSVReader.rows(csv { try RunSettingsCSV.write(analysis, metadata: metadata, to: &$0) })
        let settings = Dictionary(uniqueKeysWithValues: rows.dropFirst().map { ($0[0], $0[1]) })
        #expect(rows.first == ["key", "value"])
        #expect(settings["command_line"] == "bench roundtrip --out 'a,b'")
        #expect(settings["start_utc"] == "2026-11-18T11:06:40Z")
        #expect(settings["count"] == "2")
        #expect(settings["duration_s"] == "0.002")
        #expect(settings["messages_measured"] == "4")
        #expect(settings["messages_lost"] == "1")
        #expect(settings["server_cpus"] == "0")
        #expect(settings["connections_closed_early"] == "1")
        #expect(try csv { try RunSettingsCSV.write(analysis, metadata: metadata, to: &$0) }
            .contains("command_line,\"bench roundtrip --out 'a,b'\"\r\n"))
    }

    @Test func connectionEventsKeepTheirReasonVerbatim() throws {
        let rows = try CSVReader.rows(csv { try ConnectionEventsCSV.write(recording(), to: &$0) })
        #expect(rows == [["time_ns", "side", "client", "reason"], ["500", "server", "", "unknown frame kind 71, \"GET\""]])
    }

    @Test func theJSONSummaryIsValidAndEscapesStrings() throws {
        let analysis = RunAnalysis(recording: recording())
        let text = SummaryJSON.render(analysis, runFolder: "results/a \"quoted\"\\folder\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["run_folder"] as? String == "results/a \"quoted\"\\folder\n")
        let metrics = try #require(object["metrics"] as? [[String: Any]])
        #expect(metrics.map { $0["metric"] as? String } == ["rtt", "lag", "connect"])
        #expect(metrics[0]["count"] as? Int == 3)
        #expect(metrics[0]["lost"] as? Int == 1)
        #expect(metrics[0]["min_us"] as? Double == 0.5)
    }

    @Test func aTargetRunsHeaderAndJSONNameItsServerAndNoServerCPU() throws {
        var recording = recording()
        recording.configuration.role = .target(TargetSettings(try TargetURL("redis://:secret@127.0.0.1:6379/news")), agentToken: nil)
        let table = SummaryTable.render(RunAnalysis(recording: recording), runFolder: "results/x")
        #expect(table.hasPrefix("roundtrip through redis://:***@127.0.0.1:6379/news: 2 clients"), "\(table)")
        #expect(!table.contains("server ran on CPU"), "a user's server runs on no CPU we know: \(table)")
        let json = SummaryJSON.render(RunAnalysis(recording: recording), runFolder: "results/x")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["target"] as? String == "redis://:***@127.0.0.1:6379/news")
        #expect(object["transport"] as? String == "redis", "as run.csv says it")
        #expect(!json.contains("secret"))
    }

    /// One count per side, the same in the terminal and run.csv, and the reasons listed add up to the events (an
    /// outage run said "9383" while its reasons added up to 9,086 and run.csv said 5000).
    @Test func theEventCountsAgreeBetweenTheSummaryAndRunCSVAndTheReasonsAddUp() throws {
        var recording = recording()  // one server event already: "unknown frame kind 71, …"
        for (side, reason, count) in [
            (ConnectionEvent.Side.server, "dropped by --drop-connections-at", 4),
            (.clients, "send: Connection reset", 2), (.clients, "closed by peer", 1), (.listener, "accept failed", 1),
        ] {
            for _ in 0..<count { recording.record(ConnectionEvent(side: side, client: 0, time: 2, reason: reason)) }
        }
        let line = SummaryTable.eventsLine(recording)
        #expect(line == "connections closed early: 5 by the server (events also: 3 seen by the clients, 1 of the "
            + "listener): dropped by --drop-connections-at (4); send: Connection reset (2); accept failed (1); 2 more "
            + "— 9 events; see events.csv", "\(line)")
        let metadata = RunMetadata(commandLine: "bench fanout", version: "9.9.9", kernel: "Linux 6", cpus: 2)
        let settings = try csv { try RunSettingsCSV.write(RunAnalysis(recording: recording), metadata: metadata, to: &$0) }
        #expect(settings.contains("\r\nconnections_closed_early,5\r\nclient_side_events,3\r\nlistener_events,1\r\n"))
    }

    @Test func theTerminalTableShowsEveryMetricAndTheFolder() {
        let table = SummaryTable.render(RunAnalysis(recording: recording()), runFolder: "results/x")
        #expect(table.contains("roundtrip over tcp: 2 clients, 2 messages each, every 10ms (poisson), 64B, seed 3"))
        #expect(table.contains("\nrtt "))
        #expect(table.contains("\nlag "))
        #expect(table.contains("<200ms"))
        #expect(table.contains("connections closed early: 1"))
        #expect(table.hasSuffix("run folder: results/x\n"))
    }
}
