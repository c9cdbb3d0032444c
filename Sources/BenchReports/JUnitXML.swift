import BenchCore

/// `junit.xml`: each threshold of a run as a JUnit test case (a breach is its failure, an inconclusive verdict its
/// error: not a measurement of the server), so CI systems show them as tests. Without thresholds, or when the run
/// did not complete, one case says whether the run completed (an error when it did not).
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
        var (totalTests, totalFailures, totalErrors) = (0, 0, 0)
        for suite in suites {
            var cases: [(name: String, outcome: (element: String, message: String)?)] = suite.thresholds.map { result in
                switch result.verdict {
                case .held: return (result.label, nil)
                case .breached: return (result.label, ("failure", result.breachLine))
                case .inconclusive: return (result.label, ("error", result.inconclusiveLine))
                }
            }
            // A run that did not complete is no measurement of the server, whatever its thresholds say of the part
            // that ran: an error.
            if cases.isEmpty || suite.status != "complete" {
                let detail = suite.statusDetail.map { ": \($0)" } ?? ""
                cases.insert(
                    ("run completed", suite.status == "complete" ? nil : ("error", "the run ended \(suite.status)\(detail)")),
                    at: 0)
            }
            let failures = cases.filter { $0.outcome?.element == "failure" }.count
            let errors = cases.filter { $0.outcome?.element == "error" }.count
            totalTests += cases.count
            totalFailures += failures
            totalErrors += errors
            text += "  <testsuite name=\"bench \(MarkupText.escape(suite.name))\" tests=\"\(cases.count)\" "
                + "failures=\"\(failures)\" errors=\"\(errors)\">\n"
            for testCase in cases {
                text += "    <testcase classname=\"bench.\(MarkupText.escape(suite.name))\" name=\"\(MarkupText.escape(testCase.name))\""
                if let outcome = testCase.outcome {
                    text += ">\n      <\(outcome.element) message=\"\(MarkupText.escape(outcome.message))\"/>\n    </testcase>\n"
                } else {
                    text += "/>\n"
                }
            }
            text += "  </testsuite>\n"
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"bench\" tests=\"\(totalTests)\" failures=\"\(totalFailures)\" errors=\"\(totalErrors)\">\n"
            + text + "</testsuites>\n"
    }
}
