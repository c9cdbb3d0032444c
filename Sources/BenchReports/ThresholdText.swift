import BenchCore

/// A checked threshold as a line for people: `threshold held: rtt.p50<2ms (measured 183.2µs, limit 2ms; 95%:
/// 180.1µs–190.2µs of 1000 values)`, ``ThresholdResult/breachLine`` when it was breached, and
/// ``ThresholdResult/inconclusiveLine`` when the run was not a measurement of the server.
public enum ThresholdText {
    public static func line(_ result: ThresholdResult) -> String {
        switch result.verdict {
        case .held: return "threshold held: \(result.namedExpression) (\(result.measurementText))"
        case .breached: return result.breachLine
        case .inconclusive: return result.inconclusiveLine
        }
    }
}

/// Checked thresholds as a JSON array: `[{"expression":"lost==0","measured":"0","limit":"0","held":true}]`.
public enum ThresholdsJSON {
    public static func render(_ results: [ThresholdResult]) -> String {
        let objects = results.map { result in
            "{\"expression\":\(JSONText.string(result.expression)),"
                + "\"measured\":\(result.measuredText.map(JSONText.string) ?? "null"),"
                + "\"limit\":\(JSONText.string(result.limitText)),"
                + "\"measured_value\":\(number(result.measuredNumber)),\"limit_value\":\(number(result.limitNumber)),"
                + "\"held\":\(result.held),\"verdict\":\"\(result.verdict.rawValue)\","
                + "\"inconclusive\":[\(result.inconclusive.map { "\"\($0.rawValue)\"" }.joined(separator: ","))],"
                + "\"values\":\(result.evidence.map { "\($0.values)" } ?? "null"),"
                + "\"beyond_limit\":\(result.evidence?.beyond.map { "\($0)" } ?? "null"),"
                + "\"ci95_low\":\(number(result.evidence?.interval?.lowerBound)),"
                + "\"ci95_high\":\(number(result.evidence?.interval?.upperBound))}"
        }
        return "[" + objects.joined(separator: ",") + "]"
    }

    /// A JSON number with 3 decimals (µs, counts, percent), or null.
    private static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return DecimalText.fixed(value, fractionDigits: 3)
    }
}
