import Foundation
import Testing

/// `bench compare` of two single runs calls a change a regression only beyond the runs' own sampling uncertainty: a
/// p99 of 200 values lies between the 195th and the largest, so two runs of an unchanged server often differ by a third
/// there. The current runs here are the baseline's own samples, changed by hand, so what is judged is known exactly.
@Suite(.timeLimit(.minutes(10))) struct CompareUncertaintyTests {
    /// A roundtrip run of 200 messages whose `rtt_ns` are set to 100 µs + 0.5 µs × the row's number (a known
    /// distribution: p99 is the 198th, 199 µs), and a copy whose values went through `change` (value, rank of 1…200).
    private func runs(_ change: @escaping (_ value: Int, _ rank: Int) -> Int) throws -> (String, String) {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "roundtrip", "--count", "200", "--interval", "1ms", "--warmup", "0", "--quiet", "--out", out,
        ])
        try #require(result.exitCode == 0, "\(result.standardError)")
        let baseline = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let current = out + "/changed"
        try rewrite(baseline + "/samples.csv") { _, rank in 100_000 + 500 * rank }
        try FileManager.default.copyItem(atPath: baseline, toPath: current)
        try rewrite(current + "/samples.csv", change)
        return (baseline, current)
    }

    /// Rewrites every row's `rtt_ns` in a samples.csv through `value` (its old value, its row's number from 1).
    private func rewrite(_ path: String, _ value: (Int, Int) -> Int) throws {
        var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\r\n")
        let column = try #require(lines[0].split(separator: ",").firstIndex(of: "rtt_ns"))
        let rows = lines.indices.dropFirst().filter { !lines[$0].isEmpty }
        try #require(rows.count == 200)
        for (number, row) in rows.enumerated() {
            var cells = lines[row].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            cells[column] = String(value(try #require(Int(cells[column]), "every message echoed"), number + 1))
            lines[row] = cells.joined(separator: ",")
        }
        try lines.joined(separator: "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func aServerTwiceAsSlowIsARegression() throws {
        let (baseline, current) = try runs { value, _ in 2 * value }
        let result = try BenchProcess.run(["compare", baseline, current, "--max-regression", "rtt.p99=+25%"])
        #expect(result.exitCode == 1, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("regression: rtt.p99=+25% broken: "))
        #expect(!result.standardOutput.contains("not a regression"))
    }

    @Test func theTopValuesMovingIsWithinTheSamplingUncertaintyAndSaidSo() throws {
        // The three largest of 200 values doubled: p99 (the 198th) doubles, but the 195th, where the current p99's
        // interval begins, stays below the baseline's largest.
        let (baseline, current) = try runs { value, rank in rank > 197 ? 2 * value : value }
        let judged = try BenchProcess.run(["compare", baseline, current, "--max-regression", "rtt.p99=+25%"])
        #expect(judged.exitCode == 0, "\(judged.standardOutput)")
        #expect(judged.standardOutput.contains(
            "not a regression: rtt.p99=+25% moved to "), "\(judged.standardOutput)")
        #expect(judged.standardOutput.contains("within the runs' own sampling uncertainty (95%: the baseline's p99 up to "))
        let strict = try BenchProcess.run([
            "compare", baseline, current, "--max-regression", "rtt.p99=+25%", "--no-uncertainty",
        ])
        #expect(strict.exitCode == 1, "the values alone: \(strict.standardOutput)")
    }
}
