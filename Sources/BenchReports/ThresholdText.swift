import BenchCore

/// A checked threshold as a line for people: `threshold held: rtt.p50<2ms (measured 183.2us, limit 2ms)`, or
/// ``ThresholdResult/breachLine`` when it was breached.
public enum ThresholdText {
    public static func line(_ result: ThresholdResult) -> String {
        result.held
            ? "threshold held: \(result.expression) (measured \(result.measuredText ?? "-"), limit \(result.limitText))"
            : result.breachLine
    }
}

/// Checked thresholds as a JSON array: `[{"expression":"lost==0","measured":"0","limit":"0","held":true}]`.
public enum ThresholdsJSON {
    public static func render(_ results: [ThresholdResult]) -> String {
        let objects = results.map { result in
            "{\"expression\":\(SummaryJSON.string(result.expression)),"
                + "\"measured\":\(result.measuredText.map(SummaryJSON.string) ?? "null"),"
                + "\"limit\":\(SummaryJSON.string(result.limitText)),"
                + "\"measured_value\":\(number(result.measuredNumber)),\"limit_value\":\(number(result.limitNumber)),"
                + "\"held\":\(result.held)}"
        }
        return "[" + objects.joined(separator: ",") + "]"
    }

    /// A JSON number with 3 decimals (µs, counts, percent), or null.
    private static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return DecimalText.fixed(value, fractionDigits: 3)
    }
}
