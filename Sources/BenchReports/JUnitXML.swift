import BenchCore

/// `junit.xml`: each threshold of a run as a JUnit test case (a breach is its failure), so CI systems show
/// them as tests. Without thresholds, one case says whether the run completed.
public enum JUnitXML {
    public static let fileName = "junit.xml"

    /// One run's test suite.
    public struct Suite: Sendable {
        public let name: String
        /// `complete`, `interrupted`, `failed`, or why there is no run.
        public let status: String
        /// For a run that did not complete: why, and how much of it was measured.
        public let statusDetail: String?
        public let thresholds: [ThresholdResult]

        public init(name: String, status: String, statusDetail: String? = nil, thresholds: [ThresholdResult]) {
            self.name = name
            self.status = status
            self.statusDetail = statusDetail
            self.thresholds = thresholds
        }
    }

    /// The document for one run.
    public static func render(_ results: RunResults) -> String {
        let scenario = results.setting("scenario") ?? "run"
        return render([Suite(
            name: scenario, status: results.setting("status") ?? "", statusDetail: results.statusDetail,
            thresholds: results.thresholds)])
    }

    /// The document for several runs (a suite), one `<testsuite>` each.
    public static func render(_ suites: [Suite]) -> String {
        var text = ""
        var totalTests = 0
        var totalFailures = 0
        for suite in suites {
            var cases = suite.thresholds.map { (name: $0.label, failure: $0.held ? nil : $0.breachLine) }
            // A run that did not complete fails, whatever its thresholds say of the part that ran.
            if cases.isEmpty || suite.status != "complete" {
                let detail = suite.statusDetail.map { ": \($0)" } ?? ""
                cases.insert(("run completed", suite.status == "complete" ? nil : "the run ended \(suite.status)\(detail)"), at: 0)
            }
            let failures = cases.filter { $0.failure != nil }.count
            totalTests += cases.count
            totalFailures += failures
            text += "  <testsuite name=\"bench \(MarkupText.escape(suite.name))\" tests=\"\(cases.count)\" failures=\"\(failures)\">\n"
            for testCase in cases {
                text += "    <testcase classname=\"bench.\(MarkupText.escape(suite.name))\" name=\"\(MarkupText.escape(testCase.name))\""
                if let failure = testCase.failure {
                    text += ">\n      <failure message=\"\(MarkupText.escape(failure))\"/>\n    </testcase>\n"
                } else {
                    text += "/>\n"
                }
            }
            text += "  </testsuite>\n"
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"bench\" tests=\"\(totalTests)\" failures=\"\(totalFailures)\">\n" + text + "</testsuites>\n"
    }
}
