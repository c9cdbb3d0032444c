@testable import BenchClients
import BenchCore
import Testing

@testable import BenchScenarios

/// A message has one fate: on runs whose timeout is shorter than many echoes, every row of samples.csv agrees
/// with itself, and filtering the rows by `lost` gives back summary.csv and run.csv exactly.
@Suite(.timeLimit(.minutes(10))) struct LossyRunConsistencyTests {
    static let runs: [(name: String, configuration: RunConfiguration)] = {
        var roundtrip = RunConfiguration(scenario: .roundtrip, seed: 21)
        roundtrip.clients = 4
        roundtrip.messages = 200
        roundtrip.interval = 1_000_000
        roundtrip.timeout = 40_000
        var fanout = RunConfiguration(scenario: .fanout, seed: 22)
        fanout.clients = 20
        fanout.messages = 100
        fanout.interval = 5_000_000
        fanout.timeout = 400_000
        return [("roundtrip --timeout 40us", roundtrip), ("fanout --timeout 400us", fanout)]
    }()

    @Test(arguments: 0..<2)
    func samplesFilteredByLostReproduceTheSummary(run: Int) throws {
        let (name, base) = Self.runs[run]
        // The run must be lossy, and not wholly: on a machine loaded by other tests every echo may take longer than
        // the first timeout, so longer ones are tried until the run is both.
        var configuration = base
        var files = try RunFiles.run(configuration)
        for factor in [4, 16, 64] as [UInt64] {
            let lost = files.samples.filter { $0["lost"] == "1" }.count
            guard lost == files.samples.count || lost == 0 else { break }
            configuration.timeout = base.timeout * factor
            files = try RunFiles.run(configuration)
        }
        let metrics = configuration.scenario == .fanout ? ["delivery", "rtt"] : ["rtt"]

        var lostRows = 0
        for row in files.samples {
            let lost = row["lost"] == "1"
            let outcome = try #require(row["outcome"])
            #expect(lost == (outcome != "echoed"), "\(name): \(row)")
            #expect((row["echo_ns"] != "") == (outcome == "echoed" || outcome == "late"), "\(name): \(row)")
            for metric in metrics {
                #expect((row["\(metric)_ns"] != "") == !lost, "\(name): \(metric) in \(row)")
            }
            if lost { lostRows += 1 }
        }
        #expect(lostRows > 0, "\(name): the run is lossy, as the test needs")
        #expect(lostRows < files.samples.count, "\(name): and not every message is lost")
        #expect(files.settings.int("messages_lost") == lostRows)
        for metric in metrics {
            let values = files.samples.compactMap { $0.int("\(metric)_ns") }.sorted()
            let summary = try #require(files.summary[metric])
            #expect(summary.int("count") == values.count, "\(name): \(metric)")
            #expect(summary.int("lost") == lostRows, "\(name): \(metric)")
            #expect(summary.double("p50_us") == Double(exactPercentile(values, 50)) / 1000, "\(name): \(metric)")
            #expect(summary.double("max_us") == Double(values.last!) / 1000, "\(name): \(metric)")
        }
        if configuration.scenario == .fanout {
            let byBroadcast = Dictionary(grouping: files.samples) { $0.int("broadcast")! }
            for row in files.broadcasts {
                let rows = try #require(byBroadcast[row.int("broadcast")!])
                let delivered = rows.filter { $0["lost"] == "0" }.count
                #expect(row.int("delivered") == delivered && row.int("lost") == rows.count - delivered)
                #expect((row["complete"] == "1") == (delivered == rows.count))
            }
        }
    }
}
