import Foundation
import Testing

/// `report.html` as a person sees it: rendered by headless Chromium (`--dump-dom`), where Debian's `chromium` is
/// installed (`.ci/run` installs it; skipped, saying so, where it is not).
@Suite(.timeLimit(.minutes(10))) struct ReportPageTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The page after Chromium rendered it.
    private func rendered(_ page: String) throws -> String {
        try Self.rendered(url: "file://" + page)
    }

    /// The page at `url` after Chromium rendered it (with `scriptTime`, after its script ran that long on Chromium's
    /// own clock).
    static func rendered(url: String, scriptTime: Int? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.chromium))
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + temporaryFolderPath(), "--dump-dom",
        ] + (scriptTime.map { ["--virtual-time-budget=\($0)"] } ?? []) + [url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test(.enabled(if: chromium != nil, "chromium is not installed: apt-get install -y chromium"))
    func aReportShowsItsServerItsOutagesItsLegendAndItsSettingsInUnits() throws {
        let out = temporaryFolderPath()
        let run = try BenchProcess.run([
            "fanout", "--clients", "5", "--duration", "2s", "--interval", "20ms", "--report-every", "500ms",
            "--drop-connections-at", "1s", "--reconnect", "--quiet", "--out", out,
        ])
        try #require(run.exitCode == 0, "\(run.standardError)")
        let folder = run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let page = try rendered(folder + "/report.html")
        #expect(page.contains("<p class=\"meta\">over tcp · 5 clients · for 2s"), "the server in the header")
        #expect(page.contains("<p class=\"note\">outages: 5 connections closed during the run; "), "outages up top")
        #expect(page.contains(">delivery over time</h2>"))
        for name in ["p50", "p99", "max"] {
            #expect(page.contains("class=\"tick\">\(name)</text>"), "the timeline's legend names \(name)")
        }
        #expect(page.contains("<tr><td>timeout</td><td>5s</td></tr>"), "settings in units")
        #expect(page.contains("<summary>every setting, as run.csv has it</summary>"), "the raw table, folded")
        // No axis label in thousands of a smaller unit (1000µs is 1ms).
        let labels = page.components(separatedBy: "class=\"tick\"").dropFirst().compactMap {
            $0.split(separator: ">").dropFirst().first?.split(separator: "<").first.map(String.init)
        }
        #expect(!labels.contains { $0.range(of: #"^\d{4,}(ns|µs|ms)$"#, options: .regularExpression) != nil },
                "\(labels.filter { $0.count > 5 })")
    }

    @Test(.enabled(if: chromium != nil, "chromium is not installed: apt-get install -y chromium"))
    func aSweepPageGivesEachStepItsNumbersAndLinksItsRuns() throws {
        let out = temporaryFolderPath()
        let sweep = try BenchProcess.run([
            "roundtrip", "--payload", "64,128", "--count", "20", "--interval", "1ms", "--repeat", "2", "--quiet",
            "--out", out,
        ])
        try #require(sweep.exitCode == 0, "\(sweep.standardError)")
        let folder = try #require(sweep.standardOutput.split(separator: "\n").last.map(String.init))
        let page = try rendered(folder + "/sweep.html")
        #expect(page.contains("<th>payload</th><th>metric</th><th>p50</th><th>p99</th><th>max</th><th>% under</th>"))
        for step in ["payload-64B", "payload-128B"] {
            for repeatIndex in 1...2 {
                #expect(page.contains("<a href=\"\(step)-repeat-\(repeatIndex)/report.html\">\(repeatIndex)</a>"),
                        "a link to \(step) repeat \(repeatIndex)")
            }
        }
        let rows = page.components(separatedBy: "<tr>").filter { $0.contains("<td>rtt</td>") }
        #expect(rows.count == 2, "a row per step")
        #expect(rows.allSatisfy { $0.contains("µs") && $0.contains("%</td>") }, "each with its figures: \(rows)")
    }
}
