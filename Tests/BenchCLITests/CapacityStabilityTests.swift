import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

@testable import BenchCLI

/// `bench capacity` gives the same answer each time against a server whose rare outliers do not move its true p99.
/// One test of five whole searches (about a minute), on its own so that its time limit is its own.
@Suite(.timeLimit(.minutes(10))) struct CapacityStabilityTests {
    /// A relay whose i-th subscriber gets each broadcast i × 120 ms late: its spread is (n − 1) × 120 ms, so
    /// `spread.p99<1140ms` holds for 10 subscribers and breaks for 11, each 60 ms from the limit (at 20 ms from it, a
    /// debug build's reads, with the whole suite and a spinning process beside them on two CPUs, came up to 34 ms late
    /// at p99 in some runs; at 40 ms, with this suite grown, 13 of 769 in one run: a 10-client step failed). Now and
    /// then (0.1% of broadcasts) one subscriber gets a broadcast 500 ms later still: outliers far under 1%, which do
    /// not move the true p99. The same search, five times, must answer 10 each time (one slow broadcast in a run
    /// decided the old search's step), and its reports must agree with the run folders they list. (A 2 s timeout: an
    /// outlier arrives within 1.7 s, and one that did not would count over the limit all the same, as an incomplete
    /// broadcast does.) A CPU hog spins through the first seconds of each search.
    @Test(.enabled(if: CapacityCommandTests.hasPython, "python3 is not installed: apt-get install -y python3"))
    func theSameSearchAgainstAServerWithRareOutliersAnswersTheSameFiveTimes() throws {
        let (relay, port) = try TargetCompositionTests.startFixture("slow_relay_server.py", ["120", "0.001", "500"])
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(relay.processIdentifier, SIGKILL)
            relay.waitUntilExit()
        }
        for search in 1...5 {
            // A CPU hog for the first seconds of each search (issue 42: another process compiling for a few seconds
            // made a step saturated, and one such step ended the search): the answer must not move.
            let hog = Thread {
                let end = Date().addingTimeInterval(3)
                var spins = 0
                while Date() < end { spins &+= 1 }
                _ = spins
            }
            hog.start()
            let out = temporaryFolderPath()
            let result = try BenchProcess.run([
                "capacity", "fanout", "--target", "tcp://127.0.0.1:\(port)", "--framing", "line", "--subscribe", "JOIN",
                "--clients", "5..11", "--messages", "300", "--interval", "2ms", "--warmup", "1", "--timeout", "2s",
                "--slo", "spread.p99<1140ms", "--resolution", "10%", "--json", "--out", out,
                // A busy machine may slip the 2 ms timetable: the spread, from the clients' reads alone, is the relay's
                // all the same, and the relay's outliers are what this test is about.
                "--accept", "saturated,disturbed",
            ], timeout: 300)
            #expect(result.exitCode == 0, "search \(search): \(result.standardError)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
                "\(result.standardOutput)")
            #expect(json["capacity"] as? Int == 10 && json["first_fail"] as? Int == 11, "search \(search): \(json["line"] ?? "")")
            #expect(json["capacity_low"] as? Int == 10 && json["capacity_high"] as? Int == 10)
            #expect(json["ending"] as? String == "found" && json["confidence"] as? Double == 0.95)
            let folder = try #require(contents(of: out)?.first.map { out + "/" + $0 })
            let rows = try csvRows(folder + "/capacity.csv")
            // Each row's figures are its run's: the spread p99 of summary.csv, and the count over the limit recounted
            // from broadcasts.csv (an incomplete broadcast counts over).
            for row in rows {
                let run = folder + "/" + row["run_folder"]!
                let summary = try csvRows(run + "/summary.csv").first { $0["metric"] == "spread" }
                #expect(Double(row["spread.p99<1140ms measured (µs)"]!) == Double(summary?["p99_us"] ?? ""), "\(row)")
                let spreads = try csvRows(run + "/broadcasts.csv").map { Int($0["spread_ns"] ?? "") }
                #expect(Int(row["spread.p99<1140ms beyond limit"]!) == spreads.filter { ($0 ?? .max) >= 1_140_000_000 }.count)
                #expect(Int(row["spread.p99<1140ms values"]!) == spreads.count)
            }
            // The steps that decide the answer were run twice, and the answer's two ends are the last of them.
            let steps = try #require(json["steps"] as? [[String: Any]])
            #expect(steps.filter { $0["value"] as? Int == 10 }.count == 2 && steps.filter { $0["value"] as? Int == 11 }.count == 2)
            #expect(steps.last?["confirmation"] as? Bool == true)
            for name in ["capacity.md", "capacity.html"] {
                let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
                #expect(text.contains("capacity: 10 clients (95%: 10 clients;"), "\(name)")
            }
            // capacity.html zooms on the bracket that decided the answer (10 held, 11 broke), the whole range beside
            // it as an overview, and no step label lies on another.
            let page = try String(contentsOfFile: folder + "/capacity.html", encoding: .utf8)
            let zoom = try #require(page.firstRange(of: "<figure class=\"zoom\">").map { page[$0.lowerBound...] })
            let zoomed = String(zoom[..<(zoom.firstRange(of: "</figure>")?.lowerBound ?? zoom.endIndex)])
            #expect(zoomed.contains(">10 clients</text>") && zoomed.contains(">11 clients</text>"), "\(zoomed)")
            #expect(!zoomed.contains(">5 clients</text>"), "the easy end is in the overview, not the zoom")
            #expect(page.contains("<figure class=\"overview\">") && page.contains("the whole range"))
            let labels = zoomed.matches(of: #/<text x="([\d.]+)" y="([\d.]+)" class="step">([^<]*)</text>/#).map {
                (x: Double($0.1)!, y: Double($0.2)!, width: 6 * Double($0.3.count))
            }
            for (index, a) in labels.enumerated() {
                for b in labels[(index + 1)...] {
                    let apart = a.x + a.width <= b.x || b.x + b.width <= a.x || abs(a.y - b.y) >= 10
                    #expect(apart, "labels at \(a) and \(b) overlap")
                }
            }
        }
    }
}

/// Which capacity runs are sampled again after a pause because other work took the machine: a run that would leave its
/// step without a pass while other processes used a quarter of a CPU or more, or while its timetable was held back by
/// them; never a run that passed, nor one on a quiet machine.
@Suite struct DisturbedStepTests {
    private func outcome(othersCPU: Double, disturbance: String? = nil, beyond: Int) -> RunCommand.Outcome {
        var outcome = RunCommand.Outcome(exitCode: .success)
        outcome.machine = MachineShare(othersCPU: othersCPU, serverCPU: nil, stealPercent: 0, cpus: 2)
        outcome.disturbance = disturbance
        outcome.thresholds = [ThresholdResult(
            expression: "spread.p99<2ms", metric: "spread", statistic: "p99", comparison: "<", limitText: "2ms",
            measuredText: "1ms", held: beyond * 100 < 300,
            evidence: .init(values: 300, beyond: beyond, allowedShare: 0.01, decision: .undecided))]
        return outcome
    }

    @Test func aStepThatWouldNotPassWhileTheMachineWasBusyIsSampledAgain() {
        let judgement = StepJudgement(objectives: ["spread.p99<2ms"], confidence: 0.95)
        #expect(CapacityCommand.isDisturbed(outcome(othersCPU: 0.93, beyond: 3), judgedWith: judgement), "undecided, busy")
        #expect(CapacityCommand.isDisturbed(outcome(othersCPU: 0.93, beyond: 12), judgedWith: judgement), "failed, busy")
        #expect(!CapacityCommand.isDisturbed(outcome(othersCPU: 0.93, beyond: 0), judgedWith: judgement), "a pass stands")
        #expect(!CapacityCommand.isDisturbed(outcome(othersCPU: 0.02, beyond: 12), judgedWith: judgement), "a quiet machine")
        #expect(CapacityCommand.isDisturbed(
            outcome(othersCPU: 0.02, disturbance: "the machine was busy with other work: …", beyond: 12), judgedWith: judgement))
    }
}
