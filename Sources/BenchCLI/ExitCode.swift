import BenchCore

/// The process exit codes (SPEC §5, and 4 for a verdict that is not a measurement).
public enum ExitCode: Int32, Sendable {
    /// Ran, and every threshold held.
    case success = 0
    /// Ran, and a threshold was breached.
    case thresholdBreached = 1
    /// Usage error: nothing run, nothing written.
    case usage = 2
    /// The run could not be done (cannot bind, too many clients, every client failed…).
    case runFailed = 3
    /// Ran, but a verdict is not a measurement of the server: the run was interrupted or is incomplete, its harness was
    /// saturated, or the metric judged has no values (and no `--accept` took that). A gate must not pass it.
    case inconclusive = 4
    /// Stopped by SIGINT after writing what was measured.
    case interrupted = 130
    /// Stopped by SIGTERM after writing what was measured.
    case terminated = 143

    /// True for the exits of a run that went to its end (held, breached or inconclusive): a series goes on after it.
    var ranToItsEnd: Bool { self == .success || self == .thresholdBreached || self == .inconclusive }

    /// The exit for a run's checked thresholds: 1 when one was breached where the run measured the server, else 4
    /// when one is inconclusive, else 0 (also without thresholds).
    static func of(_ verdicts: [ThresholdResult]) -> ExitCode {
        if verdicts.contains(where: { $0.verdict == .breached }) { return .thresholdBreached }
        return verdicts.contains { $0.verdict == .inconclusive } ? .inconclusive : .success
    }

}
