import Glibc

/// A verdict decided with a stated confidence from the count of values on the wrong side of a limit, as MLPerf
/// LoadGen's early stopping decides a latency percentile.
///
/// `p99<200ms` holds when at most 1% of values are 200 ms or more. Of `n` values, `k` were; if the true share were 1%,
/// `k` would be binomial(n, 1%). The objective is decided **passed** when so few over would happen by chance with at most
/// 1 − confidence probability were the true share 1% or more (`P(X ≤ k) ≤ α`), **failed** when so many over would
/// (`P(X ≥ k) ≤ α`), and **undecided** in between. With none over a p99 needs 299 values to pass at 95%
/// (0.99^299 < 0.05); 2 over in 20 already fails it (P(X ≥ 2) = 0.017).
public enum ProportionDecision {
    /// What the counts decide.
    public enum Outcome: String, Sendable, Equatable {
        case pass, fail, undecided
    }

    /// Decides whether at most `allowedShare` (0…1) of all values lie beyond a limit, from `beyond` of `values`.
    /// An allowed share of 0 or 1 cannot be decided by chance: it is judged as counted (none beyond passes a share of 0).
    public static func decide(beyond: Int, of values: Int, allowedShare: Double, confidence: Double) -> Outcome {
        guard values > 0, beyond >= 0, beyond <= values else { return .undecided }
        if allowedShare <= 0 { return beyond == 0 ? .pass : .fail }
        if allowedShare >= 1 { return .pass }
        let alpha = 1 - confidence
        if cumulative(atMost: beyond, of: values, share: allowedShare) <= alpha { return .pass }
        if beyond > 0 && 1 - cumulative(atMost: beyond - 1, of: values, share: allowedShare) <= alpha { return .fail }
        return .undecided
    }

    /// Decides as ``decide(beyond:of:allowedShare:confidence:)`` does, but a pass at `passConfidence` (at most
    /// `confidence`): a capacity search finds its way with passes it is less sure of, and decides every failure, and
    /// the steps that give its answer, at the full confidence.
    public static func decide(
        beyond: Int, of values: Int, allowedShare: Double, confidence: Double, passConfidence: Double
    ) -> Outcome {
        let strict = decide(beyond: beyond, of: values, allowedShare: allowedShare, confidence: confidence)
        guard strict == .undecided, passConfidence < confidence else { return strict }
        let lenient = decide(beyond: beyond, of: values, allowedShare: allowedShare, confidence: passConfidence)
        return lenient == .pass ? .pass : .undecided
    }

    /// The fewest values that can decide a pass with none beyond the limit: 299 for a p99 at 95%.
    public static func valuesToPass(allowedShare: Double, confidence: Double) -> Int? {
        guard allowedShare > 0, allowedShare < 1, confidence > 0, confidence < 1 else { return nil }
        let needed = (log1p(-confidence) / log1p(-allowedShare)).rounded(.up)
        return needed.isFinite && needed < Double(Int.max / 2) ? Int(needed) : nil
    }

    /// P(X ≤ k) for X binomial(n, p), summed in log space term by term (each term from the last by its ratio), so
    /// neither millions of values nor tiny shares underflow. Exact to the precision of Double.
    static func cumulative(atMost k: Int, of n: Int, share p: Double) -> Double {
        if k < 0 { return 0 }
        if k >= n { return 1 }
        // Sum the shorter tail: P(X ≤ k) = 1 − P(X ≥ k + 1).
        if k > n / 2 { return max(0, 1 - upperTail(from: k + 1, of: n, share: p)) }
        var logTerm = Double(n) * log1p(-p)  // P(X = 0)
        var logSum = logTerm
        let logRatio = log(p) - log1p(-p)
        for i in stride(from: 0, to: k, by: 1) {
            logTerm += log(Double(n - i)) - log(Double(i + 1)) + logRatio
            logSum = addLogs(logSum, logTerm)
        }
        return min(1, exp(logSum))
    }

    /// P(X ≥ k), summed from n down.
    private static func upperTail(from k: Int, of n: Int, share p: Double) -> Double {
        var logTerm = Double(n) * log(p)  // P(X = n)
        var logSum = logTerm
        let logRatio = log1p(-p) - log(p)
        var i = n
        while i > k {
            logTerm += log(Double(i)) - log(Double(n - i + 1)) + logRatio
            logSum = addLogs(logSum, logTerm)
            i -= 1
        }
        return min(1, exp(logSum))
    }

    private static func addLogs(_ a: Double, _ b: Double) -> Double {
        let (high, low) = a > b ? (a, b) : (b, a)
        return high + log1p(exp(low - high))
    }
}
